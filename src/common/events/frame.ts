import type { ChannelEvent, ReplayCopy } from './types.js';

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

/** An event before it has a position: `{ topic, event, ...fields }` without `id` (the store gives it; it comes last). */
export function eventBody(topic: string, event: string, fields: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { topic, event, ...fields };
  body.topic = topic;
  body.event = event;
  delete body.id;
  return body;
}

/** The frame of a body's JSON (`eventBody`, serialized) with its id appended: the bytes `encodeFrame` makes of the same event. */
export const frameOf = (json: string, id: string, payloadId?: string): Buffer =>
  Buffer.from(`id: ${id}\ndata: ${json.slice(0, -1)},"id":${JSON.stringify(payloadId ?? id)}}\n\n`);

/** An event read back from its replay copy: its fields, and the cursor as `id` (as a listener sees it). */
export const eventOf = (copy: ReplayCopy, id: string): ChannelEvent =>
  ({ ...(JSON.parse(copy.json) as Record<string, unknown>), id }) as ChannelEvent;

const NEVER_OMITTED = new Set(['topic', 'event', 'id']);

const valueBytes = (value: unknown): number =>
  typeof value === 'string' ? Buffer.byteLength(value) : value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? '');

/**
 * The JSON kept for replay: the body's own JSON (`whole`: then it is also the
 * live frame's) unless a field is transient or too large, in which case those
 * fields are dropped and named in `omitted`. A body with a transient field is
 * never serialized whole here, so a big transient payload costs nothing unless
 * a connection takes the event. Throws when the body cannot be serialized.
 */
export function replayJson(
  body: Record<string, unknown>,
  transientFields: readonly string[] | undefined,
  maxFieldBytes: number,
): { json: string; whole: boolean } {
  const hasTransient = transientFields?.some((field) => !NEVER_OMITTED.has(field) && Object.hasOwn(body, field)) ?? false;
  let json: string | undefined;
  if (!hasTransient) {
    json = JSON.stringify(body);
    // No field can be larger than the whole body.
    if (json.length <= maxFieldBytes / 3 || Buffer.byteLength(json) <= maxFieldBytes) return { json, whole: true };
  }
  const copy: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const drop = !NEVER_OMITTED.has(key) && (transientFields?.includes(key) || valueBytes(value) > maxFieldBytes);
    if (drop) omitted.push(key);
    else copy[key] = value;
  }
  if (omitted.length === 0) return { json: json ?? JSON.stringify(body), whole: true };
  copy.omitted = omitted;
  return { json: JSON.stringify(copy), whole: false };
}
