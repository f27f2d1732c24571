import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventChannel } from './channel.js';

/** Events after which a per-request stream ends (a batch's slots report `slot_done` / `slot_error`). */
const TERMINAL_EVENTS = new Set(['done', 'error']);

/** True when the client asked for a per-request event stream (`Accept: text/event-stream`). */
export const wantsEventStream = (request: FastifyRequest): boolean =>
  (request.headers.accept ?? '').toLowerCase().includes('text/event-stream');

export interface RequestStreamOptions {
  requestId: string;
  /** The client went away (or stopped reading) before a terminal event: cancel the job here. */
  onClientClose?: () => void;
}

/**
 * Answers a POST with the events of one request as SSE (same frames and ids as
 * `/api/events`, live only). Subscribes before it returns, so call it first and
 * start the job after. The promise settles when the response is over.
 */
export function streamRequestEvents(reply: FastifyReply, channel: EventChannel, options: RequestStreamOptions): Promise<void> {
  return channel.openStream(reply, {
    filter: (event) => event.requestId === options.requestId,
    isLast: (event) => TERMINAL_EVENTS.has(event.event),
    onClientClose: options.onClientClose,
  });
}
