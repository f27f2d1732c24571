import { readSseFrames, type SseReadOptions } from './sse-reader.js';
import type { ChannelEvent } from './types.js';

export type { SseHooks, SseReadOptions } from './sse-reader.js';

/** One parsed SSE event. `id` and `event` are present only when the event set them. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Parses any SSE body (UTF-8, BOM, CR/LF/CRLF, comments, multi-line data,
 * chunks split anywhere), each event's data decoded once. A reader that can
 * use bytes (an upstream's image events) calls readSseFrames instead.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<SseMessage> {
  for await (const frame of readSseFrames(body, options)) yield { ...frame, data: frame.data.toString('utf8') };
}

export type EventStreamStatus = 'open' | 'reconnecting' | 'closed';

export interface ConnectEventsOptions {
  /** Resume after this id (else live events only). */
  lastEventId?: string;
  headers?: Record<string, string>;
  onEvent: (event: ChannelEvent) => void;
  onStatus?: (status: EventStreamStatus) => void;
  /** Each failed attempt (network error, non-200, idle timeout) and errors thrown by onEvent. */
  onError?: (error: unknown) => void;
  signal?: AbortSignal;
  /** First reconnect delay (default: the server's `retry:`, else 1000 ms); doubles per failed attempt. */
  reconnectDelayMs?: number;
  /** Cap of the reconnect delay (default 5000 ms). */
  maxReconnectDelayMs?: number;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long (default 45000 ms = 3 heartbeats; 0: never). */
  idleTimeoutMs?: number;
  /** Most bytes one event may hold (default 32 MiB); a larger one ends the connection (SseEventTooLarge) and it is reopened. */
  maxEventBytes?: number;
}

export interface EventConnection {
  close(): void;
  /** Id of the last event received (the resume cursor). */
  lastEventId(): string | undefined;
  /** Settles once the connection is closed for good (close, abort, or a refusal other than 503). */
  readonly closed: Promise<void>;
}

const DEFAULT_RECONNECT_DELAY_MS = 1000;
const DEFAULT_MAX_RECONNECT_DELAY_MS = 5000;
/** Most bytes one event may hold (a studio's largest, a partial image, is well under it). */
const DEFAULT_MAX_EVENT_BYTES = 32 * 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

function toChannelEvent(message: SseMessage): ChannelEvent | undefined {
  try {
    const value: unknown = JSON.parse(message.data);
    if (typeof value !== 'object' || value === null) return undefined;
    const event = value as Record<string, unknown>;
    if (typeof event.topic !== 'string' || typeof event.event !== 'string') return undefined;
    if (typeof event.id !== 'string' && message.id !== undefined) event.id = message.id;
    return event as ChannelEvent;
  } catch {
    return undefined;
  }
}

export class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`The event stream answered HTTP ${status}.`);
    this.name = 'HttpStatusError';
  }
}

/**
 * Follows `/api/events`: GET with `Accept: text/event-stream`, one ChannelEvent
 * per `data:` frame, reconnecting with backoff and `Last-Event-ID` so nothing
 * is lost or repeated. Stops on close/abort, and on any non-200 answer except
 * 503 (capacity or a restarting server), which is retried.
 */
export function connectEvents(url: string, options: ConnectEventsOptions): EventConnection {
  const maxDelay = options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
  const idleTimeout = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let baseDelay = Math.min(options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS, maxDelay);
  let last = options.lastEventId;
  let stopped = false;
  let attempt: AbortController | undefined;
  let wake: (() => void) | undefined;
  let opened = false;

  const close = (): void => {
    if (stopped) return;
    stopped = true;
    attempt?.abort();
    wake?.();
  };
  if (options.signal?.aborted) close();
  options.signal?.addEventListener('abort', close, { once: true });

  const report = (error: unknown): void => options.onError?.(error);

  const sleep = (milliseconds: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, milliseconds);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** One connection; true when a reconnect should follow. */
  const follow = async (controller: AbortController): Promise<boolean> => {
    const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream' };
    if (last) headers['last-event-id'] = last;
    const response = await fetch(url, { headers, signal: controller.signal });
    const contentType = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !contentType.startsWith('text/event-stream') || !response.body) {
      await response.body?.cancel().catch(() => {});
      report(new HttpStatusError(response.status));
      return response.status === 503;
    }
    opened = true;
    options.onStatus?.('open');
    let lastActivity = Date.now();
    let idleTimer: NodeJS.Timeout | undefined;
    const checkIdle = (): void => {
      const quiet = Date.now() - lastActivity;
      if (quiet >= idleTimeout) controller.abort(new Error(`No data for ${idleTimeout} ms.`));
      else idleTimer = setTimeout(checkIdle, idleTimeout - quiet);
    };
    if (idleTimeout > 0) idleTimer = setTimeout(checkIdle, idleTimeout);
    try {
      const hooks: SseReadOptions = {
        // A heartbeat inside an unfinished event is no sign of life: the event must end within the idle time.
        onComment: (_text, inEvent) => {
          if (!inEvent) lastActivity = Date.now();
        },
        maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
        onRetry: (milliseconds) => {
          if (options.reconnectDelayMs === undefined) baseDelay = Math.min(milliseconds, maxDelay);
        },
      };
      for await (const message of readSse(response.body, hooks)) {
        lastActivity = Date.now();
        // An empty `id:` resets the cursor, as in EventSource.
        if (message.id !== undefined) last = message.id || undefined;
        const event = toChannelEvent(message);
        if (!event) continue;
        try {
          options.onEvent(event);
        } catch (error) {
          report(error);
        }
      }
    } finally {
      clearTimeout(idleTimer);
    }
    return true;
  };

  const run = async (): Promise<void> => {
    let delay = baseDelay;
    while (!stopped) {
      attempt = new AbortController();
      opened = false;
      let again: boolean;
      try {
        again = await follow(attempt);
      } catch (error) {
        again = true;
        if (!stopped) report(error);
      }
      if (stopped || !again) break;
      // The server answered 200: start the backoff over.
      if (opened) delay = baseDelay;
      options.onStatus?.('reconnecting');
      // Jitter spreads the reconnects of many clients after a server restart.
      await sleep(delay * (0.75 + Math.random() * 0.5));
      delay = Math.min(delay * 2, maxDelay);
    }
    stopped = true;
    options.signal?.removeEventListener('abort', close);
    options.onStatus?.('closed');
  };

  const closed = run();
  return { close, lastEventId: () => last, closed };
}
