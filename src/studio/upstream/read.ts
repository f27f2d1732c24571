import type { z } from 'zod';
import { readSseFrames, SseEventTooLarge, type SseFrame } from '../../common/events/sse-reader.js';
import type { UpstreamResponse } from './transport.js';
import { UpstreamError } from './upstream-error.js';

// Response handlers: bodies read within bounds and checked against schemas.
// A body that is not what the protocol says is a `protocol` failure of the
// upstream, not a network one.

/** Most bytes of one upstream JSON answer, or of one event of a stream (a 4K image's base64 is some 30 MB). */
export const UPSTREAM_BODY_MAX_BYTES = 64 * 1024 * 1024;

const protocolError = (lane: string, message: string, cause?: unknown) =>
  new UpstreamError(message, { lane, failure: 'protocol', stage: 'stream', cause });

/** The body's bytes, refusing more than `maxBytes` (declared or received). */
export async function readBytes(lane: string, response: UpstreamResponse, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes)
    throw protocolError(lane, `The upstream body is ${declared} bytes; the limit is ${maxBytes}.`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw protocolError(lane, `The upstream body exceeds the limit of ${maxBytes} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A JSON body checked against `schema`. */
export async function readJson<T>(
  lane: string,
  response: UpstreamResponse,
  schema: z.ZodType<T>,
  maxBytes = UPSTREAM_BODY_MAX_BYTES,
): Promise<T> {
  const text = (await readBytes(lane, response, maxBytes)).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw protocolError(lane, 'The upstream answered with something that is not JSON.', error);
  }
  return parseWithSchema(lane, value, schema, 'answer');
}

/** `value` checked against `schema`; a mismatch names the first field that is off. */
export function parseWithSchema<T>(lane: string, value: unknown, schema: z.ZodType<T>, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join('.') || '(root)';
  throw protocolError(lane, `The upstream's ${what} is not as its protocol says (${path}: ${issue?.message}).`);
}

/**
 * The events of an SSE body, their data as bytes; refuses a body that is not
 * an event stream, and an event larger than UPSTREAM_BODY_MAX_BYTES (the
 * stream is not read further).
 */
export async function* readEventStream(lane: string, response: UpstreamResponse): AsyncGenerator<SseFrame> {
  const type = response.headers.get('content-type') ?? '';
  if (!/text\/event-stream/i.test(type))
    throw protocolError(lane, `The upstream answered ${type || 'without a content type'} where an event stream was expected.`);
  try {
    yield* readSseFrames(response.body, { maxEventBytes: UPSTREAM_BODY_MAX_BYTES });
  } catch (error) {
    if (error instanceof SseEventTooLarge)
      throw protocolError(lane, `An event of the upstream's stream exceeds the limit of ${error.maxEventBytes} bytes.`, error);
    throw error;
  }
}
