import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, SHARED_CODES } from '../errors.js';
import { sendError } from '../http-errors.js';
import { eventId, gapId, parseCursor } from './event-id.js';
import { buildEvent, encodeFrame, eventBody, eventOf, frameOf, HEARTBEAT, OPEN_PREAMBLE, replayJson } from './frame.js';
import { ReplayBuffer } from './replay-buffer.js';
import { SseConnection, type CloseReason } from './sse-connection.js';
import type {
  ChannelEvent,
  EventBus,
  EventChannelOptions,
  HeldEvents,
  InternalListener,
  PublishOptions,
  ReplayCopy,
  ReplayGapEvent,
  ReplayGapReason,
  ReplayStore,
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

/** What a cursor gets before live events: a gap notice when it cannot be honoured, then the copies. */
interface Replay {
  readonly gap?: ReplayGapEvent;
  readonly copies: HeldEvents['copies'];
}

interface Stream {
  readonly connection: SseConnection;
  /** The request's reply (to find one stream and tell it alone). */
  readonly reply: FastifyReply;
  /** GET /api/events connections count against maxListeners; per-request streams do not. */
  readonly counted: boolean;
  readonly options?: StreamOptions;
  /** Events up to this seq were in the replay it opened with (a store whose events go live from its tail may send them after). */
  readonly afterSeq: number;
  readonly ended: () => void;
}

/** An event ready to publish whose copy is kept by someone else (EventChannel.prepare). */
export interface PreparedEvent {
  /** The replay copy to keep. */
  readonly copy: ReplayCopy;
  /** Sends the event live as kept at `seq` (once: its object is frozen then) and answers it. */
  deliver(seq: number): ChannelEvent;
}

/** A `GET /api/events` connection whose replay is being read (a store that answers late): its live events wait here. */
interface Pending {
  readonly held: Array<{ readonly seq: number; readonly frame: Buffer }>;
  /** Bytes held; past maxBufferedBytes the connection is refused once its replay is read (it resumes by cursor). */
  heldBytes: number;
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
 * The SSE event channel: one sequence of events, a replay store (a bounded
 * buffer in memory, or the studio's event log), SSE connections
 * (`GET /api/events` and per-request POST streams) and in-process listeners.
 * Publishing runs synchronously: the store takes the copy and gives the id,
 * then connections and listeners get the event. A connection's replay and its
 * live events never interleave or repeat: with a store in memory the replay
 * and the registration are one step; with a store that answers late, the
 * connection is registered first and its live events wait until the replay
 * is written (those the replay already holds are dropped by seq).
 */
export class EventChannel implements EventBus {
  private readonly settings: Settings;
  private readonly onListenerError: (error: unknown, event: ChannelEvent) => void;
  private readonly store: ReplayStore;
  private readonly streams = new Set<Stream>();
  private readonly pendingStreams = new Set<Pending>();
  private counted = 0;
  private subscriptions: readonly Subscription[] = [];
  private readonly pending: Array<{ seq: number; event: ChannelEvent }> = [];
  private delivering = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: EventChannelOptions = {}) {
    this.settings = validated(options);
    this.onListenerError = options.onListenerError ?? ((error) => console.error('event channel: a listener failed:', error));
    this.store = options.store ?? new ReplayBuffer(this.settings.replaySize);
  }

  /** The prefix of every id: random per run in memory, the database's with the studio's log. */
  get runId(): string {
    return this.store.prefix;
  }

  get hasAudience(): boolean {
    return this.streams.size > 0 || this.pendingStreams.size > 0 || this.subscriptions.length > 0;
  }

  /** Active `GET /api/events` connections (per-request streams and internal listeners are not counted). */
  get listenerCount(): number {
    return this.counted;
  }

  publish(topic: string, event: string, fields: Record<string, unknown> = {}, options: PublishOptions = {}): ChannelEvent {
    const prepared = this.prepare(topic, event, fields, options);
    return prepared.deliver(this.store.push(prepared.copy));
  }

  /**
   * Half of publish, for an event kept by someone else (an outbox: a store transaction that appends
   * the copy with its row change): the copy to keep, and `deliver(seq)` to send it live (connections,
   * listeners) once it is kept at `seq`. Serializes the copy now: an event that cannot be serialized
   * throws here. `publish` is `deliver(store.push(copy))`.
   */
  prepare(topic: string, event: string, fields: Record<string, unknown> = {}, options: PublishOptions = {}): PreparedEvent {
    const body = eventBody(topic, event, fields);
    const { json, whole } = replayJson(body, options.transientFields, this.settings.maxReplayFieldBytes);
    const copy: ReplayCopy = options.payloadId === undefined ? { json } : { json, payloadId: options.payloadId };
    return { copy, deliver: (seq) => this.deliver(seq, body, json, whole, options.payloadId) };
  }

  /**
   * Sends live an event kept at `seq` that was published elsewhere (another studio on a shared
   * event log): its replay copy is all there is, so transient fields stay with the publisher and
   * are listed in `omitted`, as in a replay. Answers the event.
   */
  deliverCopy(seq: number, copy: ReplayCopy): ChannelEvent {
    const live = Object.freeze(eventOf(copy, eventId(this.store.prefix, seq)));
    let frame: Buffer | undefined;
    return this.fanOut(seq, live, () => (frame ??= frameOf(copy.json, live.id, copy.payloadId)));
  }

  private deliver(seq: number, body: Record<string, unknown>, json: string, whole: boolean, payloadId: string | undefined): ChannelEvent {
    body.id = eventId(this.store.prefix, seq);
    const live = Object.freeze(body) as ChannelEvent;
    // The live frame is serialized at most once, and only if a connection takes the event: a partial image
    // nobody watches is never turned into a megabyte of JSON. An ordinary event's frame is its copy's JSON plus the id.
    let frame: Buffer | undefined;
    return this.fanOut(seq, live, () => (frame ??= whole ? frameOf(json, live.id, payloadId) : encodeFrame(live, payloadId)));
  }

  private fanOut(seq: number, live: ChannelEvent, liveFrame: () => Buffer): ChannelEvent {
    for (const pending of this.pendingStreams) {
      if (pending.heldBytes > this.settings.maxBufferedBytes) continue;
      pending.held.push({ seq, frame: liveFrame() });
      pending.heldBytes += liveFrame().length;
    }
    for (const stream of this.streams) {
      if (!stream.connection.isOpen || seq <= stream.afterSeq || (stream.options && !stream.options.filter(live))) continue;
      if (stream.connection.send(liveFrame()) && stream.options?.isLast?.(live)) stream.connection.finish();
    }
    this.notify(seq, live);
    return live;
  }

  async replay(cursor: string): Promise<ChannelEvent[]> {
    const { gap, copies } = this.replayOf(cursor, await this.store.read(this.positionOf(cursor)));
    const events = copies.map(({ seq, copy }) => eventOf(copy, eventId(this.store.prefix, seq)));
    return gap ? [gap, ...events] : events;
  }

  /** Every event published after this call, in order, with transient fields. Returns the unsubscribe. */
  subscribe(listener: InternalListener): () => void {
    const subscription: Subscription = { listener, afterSeq: this.store.lastSeq, active: true };
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
    const cursor = cursorOf(request);
    if (cursor === undefined) {
      void this.attach(reply, Buffer.from(OPEN_PREAMBLE(SSE_RETRY_MS)), true, 0);
      return;
    }
    // Registered before the store is asked: every event published from here on is either replayed or held.
    const pending: Pending = { held: [], heldBytes: 0 };
    this.pendingStreams.add(pending);
    this.counted += 1;
    const settle = () => {
      this.pendingStreams.delete(pending);
      this.counted -= 1;
    };
    const open = (held: HeldEvents) => {
      const frames = this.replayFrames(cursor, held);
      // Events published while the replay was read and not in it (seq past what it saw) follow it, in order.
      const live = pending.held.filter((each) => each.seq > held.lastSeq).map((each) => each.frame);
      const replayed = this.store.liveFromTail ? held.lastSeq : 0;
      void this.attach(reply, Buffer.concat([Buffer.from(OPEN_PREAMBLE(SSE_RETRY_MS)), ...frames, ...live]), true, replayed);
    };
    let read: HeldEvents | Promise<HeldEvents>;
    try {
      read = this.store.read(this.positionOf(cursor));
    } catch (error) {
      settle();
      throw error;
    }
    if (!(read instanceof Promise)) {
      // A store in memory: replay and registration are this one synchronous step.
      settle();
      open(read);
      return;
    }
    read.then(
      (held) => {
        settle();
        if (this.closed) sendError(reply, new ServiceError('SERVICE_UNAVAILABLE', 'The event channel is shutting down.'));
        // More was published while the replay was read than a connection may have unsent: as a slow consumer, it resumes by cursor.
        else if (pending.heldBytes > this.settings.maxBufferedBytes)
          sendError(
            reply,
            new ServiceError('SERVICE_UNAVAILABLE', 'Too many events arrived while the replay was read; reconnect with the same cursor.'),
          );
        else open(held);
      },
      (error: unknown) => {
        settle();
        console.error('event channel: the events to replay could not be read:', error);
        sendError(
          reply,
          new ServiceError('SERVICE_UNAVAILABLE', 'The events to replay could not be read; reconnect with the same cursor.'),
        );
      },
    );
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
    return this.attach(reply, Buffer.from(OPEN_PREAMBLE()), false, 0, options);
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
    const frame = encodeFrame(buildEvent(topic, event, fields, eventId(this.store.prefix, this.store.lastSeq)));
    const open = [...this.streams].find((stream) => stream.reply === reply);
    if (open) {
      open.connection.send(frame);
      open.connection.finish();
      return;
    }
    SseConnection.open(reply, Buffer.concat([Buffer.from(OPEN_PREAMBLE()), frame]), this.settings.maxBufferedBytes, () => {}).finish();
  }

  /**
   * Ends every SSE connection now open (new ones are still taken): the live events they would get
   * next are not all at hand (a shared log trimmed some before they could be sent). A client of
   * `/api/events` resumes by cursor and is told of the gap.
   */
  dropConnections(): void {
    for (const stream of this.streams) stream.connection.shutdown();
  }

  /** Ends every SSE connection and the heartbeat (shutdown). Idempotent; publish still works for internal listeners. */
  close(): void {
    this.closed = true;
    for (const stream of this.streams) stream.connection.shutdown();
    this.stopHeartbeatIfIdle(true);
  }

  /** The seq to read after: the cursor's when it is ours, else none (every event held). */
  private positionOf(cursorText: string): number | undefined {
    const cursor = parseCursor(cursorText);
    return cursor?.runId === this.store.prefix ? cursor.seq : undefined;
  }

  /**
   * What a cursor gets before live events: the events after it, or, when it
   * cannot be honoured, a replay_gap notice and then every event still held
   * (all are newer than any cursor we cannot place, so none is a duplicate).
   * `held` is what the store answered for `positionOf(cursorText)`.
   */
  private replayOf(cursorText: string, held: HeldEvents): Replay {
    const cursor = parseCursor(cursorText);
    const { oldestSeq, lastSeq, copies } = held;
    const prefix = this.store.prefix;
    const ours = cursor?.runId === prefix;
    if (cursor && ours && cursor.seq >= oldestSeq - 1 && cursor.seq <= lastSeq) return { copies };

    const reason: ReplayGapReason = !cursor || (ours && cursor.seq > lastSeq) ? 'invalid_cursor' : ours ? 'evicted' : 'unknown_run';
    const gap: ReplayGapEvent = {
      topic: 'system',
      event: 'replay_gap',
      reason,
      requestedId: cursorText,
      oldestId: oldestSeq <= lastSeq ? eventId(prefix, oldestSeq) : null,
      ...(reason === 'evicted' && cursor && this.store.dense ? { missed: oldestSeq - 1 - cursor.seq } : {}),
      id: gapId(prefix, oldestSeq - 1),
    };
    return { gap, copies };
  }

  private replayFrames(cursorText: string, held: HeldEvents): Buffer[] {
    const { gap, copies } = this.replayOf(cursorText, held);
    const frames = copies.map(({ seq, copy }) => frameOf(copy.json, eventId(this.store.prefix, seq), copy.payloadId));
    return gap ? [encodeFrame(gap), ...frames] : frames;
  }

  private attach(reply: FastifyReply, preamble: Buffer, counted: boolean, afterSeq: number, options?: StreamOptions): Promise<void> {
    return new Promise((resolve) => {
      const stream: Stream = {
        reply,
        connection: SseConnection.open(reply, preamble, this.settings.maxBufferedBytes, (reason) => this.detach(stream, reason)),
        counted,
        options,
        afterSeq,
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
