import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventChannel } from './channel.js';
import type { ChannelEvent } from './types.js';

/** Events after which a per-request stream ends. */
export const DEFAULT_TERMINAL_EVENTS: readonly string[] = ['done', 'error'];

/** True when the client asked for a per-request event stream (`Accept: text/event-stream`). */
export const wantsEventStream = (request: FastifyRequest): boolean =>
  (request.headers.accept ?? '').toLowerCase().includes('text/event-stream');

export interface RequestStreamOptions {
  requestId: string;
  /** Event names that end the stream (default `done`, `error`). */
  terminalEvents?: readonly string[];
  /** Overrides terminalEvents when the name alone is not enough (e.g. per-slot `done` of a batch). */
  isTerminal?: (event: ChannelEvent) => boolean;
  /** The client went away (or stopped reading) before a terminal event: cancel the job here. */
  onClientClose?: () => void;
}

/**
 * Answers a POST with the events of one request as SSE (same frames and ids as
 * `/api/events`, live only). Subscribes before it returns, so call it first and
 * start the job after. The promise settles when the response is over.
 */
export function streamRequestEvents(reply: FastifyReply, channel: EventChannel, options: RequestStreamOptions): Promise<void> {
  const terminal = new Set(options.terminalEvents ?? DEFAULT_TERMINAL_EVENTS);
  return channel.openStream(reply, {
    filter: (event) => event.requestId === options.requestId,
    isLast: options.isTerminal ?? ((event) => terminal.has(event.event)),
    onClientClose: options.onClientClose,
  });
}
