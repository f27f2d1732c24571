import type { ChannelEvent } from './types.js';

// Wire format: data-only frames (no `event:` field), one JSON line, always an id.
// Each event is serialized once; the same bytes go to every connection.

/** Written on connect so clients see the stream open; `retry` makes browsers reconnect fast. */
export const OPEN_PREAMBLE = (retryMs?: number): string => `${retryMs === undefined ? '' : `retry: ${retryMs}\n`}: connected\n\n`;

export const HEARTBEAT = Buffer.from(': ping\n\n');

/**
 * The frame of one event: `id:` (the cursor) then its JSON on one `data:` line
 * (JSON escapes every newline). With `payloadId` the JSON's `id` is that
 * instead of the cursor (see PublishOptions.payloadId).
 */
export const encodeFrame = (event: ChannelEvent, payloadId?: string): Buffer =>
  Buffer.from(`id: ${event.id}\ndata: ${JSON.stringify(payloadId === undefined ? event : { ...event, id: payloadId })}\n\n`);

/** The event object of a published event: `{ topic, event, ...fields, id }`; fields cannot override the three. */
export function buildEvent(topic: string, event: string, fields: Record<string, unknown>, id: string): ChannelEvent {
  const built: Record<string, unknown> = { topic, event, ...fields };
  built.topic = topic;
  built.event = event;
  built.id = id;
  return Object.freeze(built) as ChannelEvent;
}

const NEVER_OMITTED = new Set(['topic', 'event', 'id']);

const valueBytes = (value: unknown): number =>
  typeof value === 'string' ? Buffer.byteLength(value) : value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? '');

/**
 * The frame kept for replay: the live frame itself unless a field is transient
 * or too large, in which case those fields are dropped and named in `omitted`.
 * `liveFrame` is only called when the live frame can be the replay frame, so
 * an event whose big payload is transient is never serialized whole here.
 */
export function replayFrame(
  event: ChannelEvent,
  liveFrame: () => Buffer,
  transientFields: readonly string[] | undefined,
  maxFieldBytes: number,
  payloadId?: string,
): Buffer {
  const hasTransient = transientFields?.some((field) => !NEVER_OMITTED.has(field) && Object.hasOwn(event, field)) ?? false;
  // No field can be larger than the whole frame.
  if (!hasTransient && liveFrame().length <= maxFieldBytes) return liveFrame();
  const copy: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === 'id') continue;
    const drop = !NEVER_OMITTED.has(key) && (transientFields?.includes(key) || valueBytes(value) > maxFieldBytes);
    if (drop) omitted.push(key);
    else copy[key] = value;
  }
  if (omitted.length === 0) return liveFrame();
  copy.omitted = omitted;
  copy.id = event.id;
  return encodeFrame(copy as ChannelEvent, payloadId);
}
