import { setTimeout as wait } from 'node:timers/promises';
import { readSse } from '../common/events/client.js';
import type { ChannelEvent } from '../common/events/types.js';
import { MANAGER_LIMITS } from './limits.js';
import { getWorker } from './worker-http.js';

export interface WorkerEventsOptions {
  origin: string;
  token?: string;
  /** Stops following (for good). */
  signal: AbortSignal;
  onEvent(event: ChannelEvent): void;
  /**
   * The cursor of the very first connection, when there is no other: one the
   * worker cannot place, so it answers a replay_gap and then every event it
   * still holds (its backlog).
   */
  firstCursor?: string;
  /** `open` each time the stream opens, `reconnecting` each time it broke. */
  onStatus(status: 'open' | 'reconnecting'): void;
  onError(error: unknown): void;
}

/** The next line break (LF or CR, as SSE allows both) at or after `from`, or -1. */
function nextBreak(chunk: Buffer, from: number): number {
  const lf = chunk.indexOf(0x0a, from);
  const cr = chunk.indexOf(0x0d, from);
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
}

/** Passes the bytes through, and fails as soon as one line grows past `maxBytes` (nothing of it is kept). */
async function* cappedLines(source: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  const tooLong = () => new Error(`an event stream line is over ${maxBytes} bytes`);
  let lineBytes = 0;
  for await (const chunk of source) {
    for (let start = 0; ;) {
      const lineBreak = nextBreak(chunk, start);
      lineBytes += (lineBreak < 0 ? chunk.length : lineBreak) - start;
      if (lineBytes > maxBytes) throw tooLong();
      if (lineBreak < 0) break;
      lineBytes = 0;
      start = lineBreak + 1;
    }
    yield chunk;
  }
}

function channelEvent(data: string, frameId: string | undefined): ChannelEvent | undefined {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const event = value as Record<string, unknown>;
    if (typeof event.topic !== 'string' || typeof event.event !== 'string') return undefined;
    if (typeof event.id !== 'string' && frameId !== undefined) event.id = frameId;
    return event as ChannelEvent;
  } catch {
    return undefined;
  }
}

/**
 * Follows a worker's `GET /api/events` until the signal aborts: through the
 * manager's worker connection (token only after proof, no redirect), each
 * line and each event capped (workerReadMaxBytes; heartbeats between the
 * lines of an unfinished event do not keep the connection alive), resuming with `Last-Event-ID`, reopened when silent for three
 * heartbeats, and retried after any break or refusal with a doubling,
 * jittered delay: a worker that comes back (restarted, fixed) is found again.
 */
export async function followWorkerEvents(options: WorkerEventsOptions): Promise<void> {
  const { signal } = options;
  let lastEventId: string | undefined = options.firstCursor;
  let delay: number = MANAGER_LIMITS.eventsReconnectMinMs;
  while (!signal.aborted) {
    const attempt = new AbortController();
    const stop = () => attempt.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () => attempt.abort(new Error(`no data for ${MANAGER_LIMITS.eventsIdleTimeoutMs} ms`)),
        MANAGER_LIMITS.eventsIdleTimeoutMs,
      );
    };
    try {
      touch();
      const headers: Record<string, string> = { accept: 'text/event-stream', ...(lastEventId && { 'last-event-id': lastEventId }) };
      const response = await getWorker(options.origin, '/api/events', options.token, headers, attempt.signal);
      if (!String(response.headers['content-type']).startsWith('text/event-stream')) {
        response.destroy();
        throw new Error('/api/events did not answer an event stream');
      }
      options.onStatus('open');
      delay = MANAGER_LIMITS.eventsReconnectMinMs;
      // An event is capped whole, not only its lines; a comment inside an unfinished event keeps nothing alive.
      const hooks = {
        maxEventBytes: MANAGER_LIMITS.workerReadMaxBytes,
        onComment: (_text: string, inEvent: boolean) => void (inEvent || touch()),
      };
      for await (const message of readSse(cappedLines(response, MANAGER_LIMITS.workerReadMaxBytes), hooks)) {
        touch();
        // An empty `id:` resets the cursor, as in EventSource.
        if (message.id !== undefined) lastEventId = message.id.slice(0, MANAGER_LIMITS.workerFieldMaxChars) || undefined;
        const event = channelEvent(message.data, lastEventId);
        if (event) options.onEvent(event);
      }
      throw new Error('the event stream ended');
    } catch (error) {
      if (!signal.aborted) options.onError(attempt.signal.aborted ? attempt.signal.reason : error);
    } finally {
      clearTimeout(idleTimer);
      signal.removeEventListener('abort', stop);
      attempt.abort();
    }
    if (signal.aborted) break;
    options.onStatus('reconnecting');
    // Jitter spreads the reconnects of many followers after a worker restart.
    // An abort ends the wait early (and the loop after it).
    await wait(delay * (0.75 + Math.random() * 0.5), undefined, { signal }).catch(() => {});
    delay = Math.min(delay * 2, MANAGER_LIMITS.eventsReconnectMaxMs);
  }
}
