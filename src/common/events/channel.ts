import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, SHARED_CODES } from '../errors.js';
import { sendError } from '../http-errors.js';
import { eventId, gapId, newRunId, parseCursor } from './event-id.js';
import { buildEvent, encodeFrame, HEARTBEAT, OPEN_PREAMBLE, replayFrame } from './frame.js';
import { ReplayBuffer } from './replay-buffer.js';
import { SseConnection, type CloseReason } from './sse-connection.js';
import type {
  ChannelEvent,
  EventBus,
  EventChannelOptions,
  InternalListener,
  PublishOptions,
  ReplayGapEvent,
  ReplayGapReason,
  StreamOptions,
} from './types.js';

export const EVENT_CHANNEL_DEFAULTS = {
  replaySize: 1000,
  maxListeners: 256,
  heartbeatMs: 15_000,
  maxBufferedBytes: 4 * 1024 * 1024,
  maxReplayFieldBytes: 4096,
} as const;

/** Reconnection delay suggested to EventSource clients with `retry:` (browsers default to ~3 s). */
export const SSE_RETRY_MS = 1000;

/** The spec's exact refusal body for `GET /api/events` at capacity (not the usual error shape). */
export const SSE_CAPACITY_BODY = '{"error":"SSE_CAPACITY"}';

type Settings = { -readonly [K in keyof typeof EVENT_CHANNEL_DEFAULTS]: number };

interface Stream {
  readonly connection: SseConnection;
  /** The request's reply (to find one stream and tell it alone). */
  readonly reply: FastifyReply;
  /** GET /api/events connections count against maxListeners; per-request streams do not. */
  readonly counted: boolean;
  readonly options?: StreamOptions;
  readonly ended: () => void;
}

interface Subscription {
  readonly listener: InternalListener;
  /** Events up to this seq were published before the subscription. */
  readonly afterSeq: number;
  active: boolean;
}

function validated(options: EventChannelOptions): Settings {
  const settings: Settings = { ...EVENT_CHANNEL_DEFAULTS };
  for (const key of Object.keys(settings) as Array<keyof Settings>) {
    const value = options[key];
    if (value === undefined) continue;
    const minimum = key === 'heartbeatMs' ? 1 : 0;
    if (!Number.isSafeInteger(value) || value < minimum) throw new RangeError(`EventChannel ${key} must be an integer >= ${minimum}.`);
    settings[key] = value;
  }
  return settings;
}

/** The client's cursor: the Last-Event-ID header wins over `?lastEventId=`. */
function cursorOf(request: FastifyRequest): string | undefined {
  const header = request.headers['last-event-id'];
  if (typeof header === 'string' && header !== '') return header;
  const query = (request.query as Record<string, unknown> | undefined)?.lastEventId;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

/**
 * The SSE event channel: one sequence of events, a bounded replay buffer,
 * SSE connections (`GET /api/events` and per-request POST streams) and
 * in-process listeners. Everything runs synchronously on publish, so a
 * connection's replay and its live events can never interleave or race.
 */
export class EventChannel implements EventBus {
  /** Random per channel (so per process start); the prefix of every id. */
  readonly runId = newRunId();
  private readonly settings: Settings;
  private readonly onListenerError: (error: unknown, event: ChannelEvent) => void;
  private readonly buffer: ReplayBuffer;
  private readonly streams = new Set<Stream>();
  private counted = 0;
  private subscriptions: readonly Subscription[] = [];
  private readonly pending: Array<{ seq: number; event: ChannelEvent }> = [];
  private delivering = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: EventChannelOptions = {}) {
    this.settings = validated(options);
    this.onListenerError = options.onListenerError ?? ((error) => console.error('event channel: a listener failed:', error));
    this.buffer = new ReplayBuffer(this.settings.replaySize);
  }

  get hasAudience(): boolean {
    return this.streams.size > 0 || this.subscriptions.length > 0;
  }

  /** Active `GET /api/events` connections (per-request streams and internal listeners are not counted). */
  get listenerCount(): number {
    return this.counted;
  }

  publish(topic: string, event: string, fields: Record<string, unknown> = {}, options: PublishOptions = {}): ChannelEvent {
    const seq = this.buffer.lastSeq + 1;
    const live = buildEvent(topic, event, fields, eventId(this.runId, seq));
    // The live frame is serialized at most once, and only if a connection takes the event:
    // a partial image nobody watches is never turned into a megabyte of JSON.
    let frame: Buffer | undefined;
    const liveFrame = () => (frame ??= encodeFrame(live, options.payloadId));
    // The replay copy is serialized before the seq is taken: an event that cannot be serialized throws here and publishes nothing.
    this.buffer.push(replayFrame(live, liveFrame, options.transientFields, this.settings.maxReplayFieldBytes, options.payloadId));
    for (const stream of this.streams) {
      if (!stream.connection.isOpen || (stream.options && !stream.options.filter(live))) continue;
      if (stream.connection.send(liveFrame()) && stream.options?.isLast?.(live)) stream.connection.finish();
    }
    this.notify(seq, live);
    return live;
  }

  replay(cursor: string): ChannelEvent[] {
    // The held frames are the events' replayed JSON: read back, not kept twice. The cursor is the `id:` line.
    return this.replayFrames(cursor).map((frame) => {
      const text = frame.toString('utf8');
      const data = text.indexOf('\ndata: ');
      const fields = JSON.parse(text.slice(data + 7, text.lastIndexOf('\n\n'))) as Record<string, unknown>;
      return { ...fields, id: text.slice(4, data) } as ChannelEvent;
    });
  }

  /** Every event published after this call, in order, with transient fields. Returns the unsubscribe. */
  subscribe(listener: InternalListener): () => void {
    const subscription: Subscription = { listener, afterSeq: this.buffer.lastSeq, active: true };
    this.subscriptions = [...this.subscriptions, subscription];
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      this.subscriptions = this.subscriptions.filter((other) => other !== subscription);
    };
  }

  /** The `GET /api/events` handler. */
  serve(request: FastifyRequest, reply: FastifyReply): void {
    if (this.closed) {
      sendError(reply, new ServiceError('SERVICE_UNAVAILABLE', 'The event channel is shutting down.'));
      return;
    }
    if (this.counted >= this.settings.maxListeners) {
      reply.code(SHARED_CODES.SSE_CAPACITY.status).type('application/json').send(SSE_CAPACITY_BODY);
      return;
    }
    // Replay and registration happen in this same synchronous step: no event can fall between them.
    const preamble = Buffer.concat([Buffer.from(OPEN_PREAMBLE(SSE_RETRY_MS)), ...this.replayFrames(cursorOf(request))]);
    void this.attach(reply, preamble, true);
  }

  /**
   * Opens an SSE response carrying the live events `options.filter` accepts
   * (no replay, not counted against maxListeners). Registered before it
   * returns; the promise settles when the response is over. See request-stream.ts.
   */
  openStream(reply: FastifyReply, options: StreamOptions): Promise<void> {
    if (this.closed) {
      sendError(reply, new ServiceError('SERVICE_UNAVAILABLE', 'The event channel is shutting down.'));
      return Promise.resolve();
    }
    return this.attach(reply, Buffer.from(OPEN_PREAMBLE()), false, options);
  }

  /**
   * A per-request stream's last word that concerns it alone (never published:
   * other listeners must not take it for news of that requestId): with a reply
   * whose stream is open (see openStream), that stream gets the event and ends;
   * without one, a new stream is opened for it. Used when the request was
   * refused after its stream opened, or when it repeats a request that ended.
   * The id is the channel's current cursor, so resuming from it misses nothing.
   */
  sendEnded(reply: FastifyReply, topic: string, event: string, fields: Record<string, unknown>): void {
    const frame = encodeFrame(buildEvent(topic, event, fields, eventId(this.runId, this.buffer.lastSeq)));
    const open = [...this.streams].find((stream) => stream.reply === reply);
    if (open) {
      open.connection.send(frame);
      open.connection.finish();
      return;
    }
    SseConnection.open(reply, Buffer.concat([Buffer.from(OPEN_PREAMBLE()), frame]), this.settings.maxBufferedBytes, () => {}).finish();
  }

  /** Ends every SSE connection and the heartbeat (shutdown). Idempotent; publish still works for internal listeners. */
  close(): void {
    this.closed = true;
    for (const stream of this.streams) stream.connection.shutdown();
    this.stopHeartbeatIfIdle(true);
  }

  /**
   * What a cursor gets before live events: the events after it, or, when it
   * cannot be honoured, a replay_gap notice and then every event still held
   * (all are newer than any cursor we cannot place, so none is a duplicate).
   */
  private replayFrames(cursorText: string | undefined): Buffer[] {
    if (cursorText === undefined) return [];
    const cursor = parseCursor(cursorText);
    const { oldestSeq, lastSeq } = this.buffer;
    const ours = cursor?.runId === this.runId;
    if (cursor && ours && cursor.seq >= oldestSeq - 1 && cursor.seq <= lastSeq) return this.buffer.after(cursor.seq);

    const reason: ReplayGapReason = !cursor || (ours && cursor.seq > lastSeq) ? 'invalid_cursor' : ours ? 'evicted' : 'unknown_run';
    const gap: ReplayGapEvent = {
      topic: 'system',
      event: 'replay_gap',
      reason,
      requestedId: cursorText,
      oldestId: oldestSeq <= lastSeq ? eventId(this.runId, oldestSeq) : null,
      ...(reason === 'evicted' && cursor ? { missed: oldestSeq - 1 - cursor.seq } : {}),
      id: gapId(this.runId, oldestSeq - 1),
    };
    return [encodeFrame(gap), ...this.buffer.after(oldestSeq - 1)];
  }

  private attach(reply: FastifyReply, preamble: Buffer, counted: boolean, options?: StreamOptions): Promise<void> {
    return new Promise((resolve) => {
      const stream: Stream = {
        reply,
        connection: SseConnection.open(reply, preamble, this.settings.maxBufferedBytes, (reason) => this.detach(stream, reason)),
        counted,
        options,
        ended: resolve,
      };
      this.streams.add(stream);
      if (counted) this.counted += 1;
      this.heartbeat ??= setInterval(() => {
        for (const each of this.streams) each.connection.send(HEARTBEAT);
      }, this.settings.heartbeatMs).unref();
    });
  }

  private detach(stream: Stream, reason: CloseReason): void {
    if (!this.streams.delete(stream)) return;
    if (stream.counted) this.counted -= 1;
    this.stopHeartbeatIfIdle(false);
    stream.ended();
    if (reason !== 'server') stream.options?.onClientClose?.();
  }

  private stopHeartbeatIfIdle(force: boolean): void {
    if (this.heartbeat && (force || this.streams.size === 0)) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  /** Internal listeners, in publish order even when a listener publishes (re-entrant calls queue). */
  private notify(seq: number, event: ChannelEvent): void {
    this.pending.push({ seq, event });
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let index = 0; index < this.pending.length; index += 1) {
        const next = this.pending[index];
        for (const subscription of this.subscriptions) {
          if (!subscription.active || next.seq <= subscription.afterSeq) continue;
          try {
            subscription.listener(next.event);
          } catch (error) {
            this.onListenerError(error, next.event);
          }
        }
      }
    } finally {
      this.pending.length = 0;
      this.delivering = false;
    }
  }
}
