// The public shape of the SSE event channel shared by the studio and the agent
// chat server. The implementation is `channel.ts`; everything else codes
// against these types.

/** One published event: what listeners receive, and the JSON of a `data:` frame. */
export interface ChannelEvent {
  /** Opaque, unique across restarts (see event-id.ts): a run's in memory, a database's in the studio's log. */
  readonly id: string;
  readonly topic: string;
  readonly event: string;
  /** The event's own fields (requestId, phase, traceId, ...). */
  readonly [field: string]: unknown;
}

export interface PublishOptions {
  /**
   * Fields too large to keep in the replay buffer (e.g. `b64` of a partial
   * image). Live listeners receive them; the replayed copy omits them and
   * lists their names in `omitted`.
   */
  readonly transientFields?: readonly string[];
  /**
   * The event's own id, carried as `id` in its JSON (e.g. a saved chat
   * message, whose spec names it `id`). The frame's `id:` line stays the
   * channel's cursor, and so does `ChannelEvent.id` for internal listeners.
   */
  readonly payloadId?: string;
}

export type InternalListener = (event: ChannelEvent) => void;

/**
 * The port producers and in-process consumers code against: publish,
 * subscribe, replay. The event channel (channel.ts) is its first
 * implementation and also serves it as SSE; the studio's bus over a log
 * shared by several studios (studio/event-bus.ts) is a second.
 */
export interface EventBus {
  /**
   * Hands an event over; subscribers and connections receive it with its id. The channel also
   * answers it (its store gives the position at once); a log shared by several studios gives the
   * position at commit, and the event goes live from there.
   */
  publish(topic: string, event: string, fields?: Record<string, unknown>, options?: PublishOptions): void;
  /** Every event published after this call, in order, with transient fields. Returns the unsubscribe. */
  subscribe(listener: InternalListener): () => void;
  /**
   * The events held after `cursor` (an event id), oldest first, as replayed
   * (transient fields omitted); a cursor that cannot be honoured answers a
   * `replay_gap` notice first, then every event held. Asynchronous: the
   * events may be held in a database.
   */
  replay(cursor: string): Promise<ChannelEvent[]>;
  /** Whether an event published now reaches anyone live (a connection or an internal listener). */
  readonly hasAudience: boolean;
}

/**
 * An event's replay copy as kept: its JSON without `id` (the store gives the
 * position, and so the id), and the id its JSON carries instead of the cursor.
 */
export interface ReplayCopy {
  /** `{"topic":…,"event":…,…}`: the event as replayed, transient and oversized fields dropped, `id` left out. */
  readonly json: string;
  readonly payloadId?: string;
}

/** What a replay store holds after a position, read at one moment. */
export interface HeldEvents {
  /** Seq of the oldest event held (`lastSeq + 1` when none is). */
  readonly oldestSeq: number;
  /** Seq of the newest event published (0 before the first). */
  readonly lastSeq: number;
  /** The copies after the position asked for, oldest first (from the oldest held when it is outside the window). */
  readonly copies: ReadonlyArray<{ readonly seq: number; readonly copy: ReplayCopy }>;
}

/**
 * Where a channel keeps its replay copies and takes each event's position:
 * in memory (replay-buffer.ts: the chat server's and the manager's), or a
 * database's event log (the studio's: ids stay valid across restarts). Seqs
 * count from 1 and are never reused under one prefix.
 */
export interface ReplayStore {
  /** The prefix of every id (`<prefix>-<seq>`): random per run in memory, per database for a log. */
  readonly prefix: string;
  /** Seq of the newest event this store knows of (0 before the first). */
  readonly lastSeq: number;
  /** Whether each event takes the next seq (so a gap notice can count what was missed). */
  readonly dense: boolean;
  /**
   * Whether events go live from the store's own tail, after it has kept them (a log shared by
   * several studios): one a read already held may then go live after that read, and a connection
   * opened with that replay must drop it. Otherwise (the default) an event goes live as it is kept.
   */
  readonly liveFromTail?: boolean;
  /** Keeps a copy and answers its seq. Synchronous: publish answers the event with its id at once. Throws when it cannot keep it. */
  push(copy: ReplayCopy): number;
  /**
   * The window held and the copies after `afterSeq` (all held when it is
   * undefined or outside the window). A store in memory answers at once
   * (and the channel replays in the same step as it registers); a log answers
   * a promise (the channel holds the connection's live events meanwhile).
   */
  read(afterSeq: number | undefined): HeldEvents | Promise<HeldEvents>;
}

export interface EventChannelOptions {
  /** Events kept for replay (default 1000). With `store`, the store's own retention applies. */
  replaySize?: number;
  /** Where replay copies are kept (default: the last `replaySize` in memory, ids per run). */
  store?: ReplayStore;
  /** Active SSE connections allowed (default 256). */
  maxListeners?: number;
  /** Heartbeat comment interval in ms (default 15000). */
  heartbeatMs?: number;
  /** Bytes queued on one connection before it is cut as a slow consumer (default 4 MiB). */
  maxBufferedBytes?: number;
  /**
   * Fields whose value is longer than this many UTF-8 bytes (a string's own
   * bytes, any other value's JSON) are dropped from replay copies automatically
   * (default 4096).
   */
  maxReplayFieldBytes?: number;
  /** Called when an internal listener throws (default: console.error). Other listeners still run. */
  onListenerError?: (error: unknown, event: ChannelEvent) => void;
}

/** Why a cursor could not be honoured. */
export type ReplayGapReason =
  /** The cursor is ours but older than the oldest event still held. */
  | 'evicted'
  /** The cursor is well-formed but from another run of the process (e.g. before a restart), or another database's log. */
  | 'unknown_run'
  /** Not an id this channel could have issued. */
  | 'invalid_cursor';

/**
 * Sent first on a connection whose cursor cannot be honoured; every event the
 * channel still holds follows it (all of them are newer than the cursor).
 */
export interface ReplayGapEvent extends ChannelEvent {
  readonly topic: 'system';
  readonly event: 'replay_gap';
  readonly reason: ReplayGapReason;
  /** The cursor the client sent. */
  readonly requestedId: string;
  /** Id of the first event replayed after this notice; null when the channel holds none. */
  readonly oldestId: string | null;
  /** How many events were lost; present only when known (`evicted`). */
  readonly missed?: number;
}

/** Options of `EventChannel.openStream` (used by per-request streams). */
export interface StreamOptions {
  /** Which live events this stream carries. */
  readonly filter: (event: ChannelEvent) => boolean;
  /** The response ends right after an event for which this returns true. */
  readonly isLast?: (event: ChannelEvent) => boolean;
  /** The client went away (or was cut as a slow consumer) before the last event. */
  readonly onClientClose?: () => void;
}
