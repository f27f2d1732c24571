// The public shape of the SSE event channel shared by the studio and the agent
// chat server. The implementation is `channel.ts`; everything else codes
// against these types.

/** One published event: what listeners receive, and the JSON of a `data:` frame. */
export interface ChannelEvent {
  /** Opaque, unique across restarts of the process (see channel.ts). */
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
}

export type InternalListener = (event: ChannelEvent) => void;

export interface EventChannelOptions {
  /** Events kept for replay (default 1000). */
  replaySize?: number;
  /** Active SSE connections allowed (default 256). */
  maxListeners?: number;
  /** Heartbeat comment interval in ms (default 15000). */
  heartbeatMs?: number;
  /** Bytes queued on one connection before it is cut as a slow consumer (default 4 MiB). */
  maxBufferedBytes?: number;
  /** String fields longer than this are dropped from replay copies automatically (default 4096). */
  maxReplayFieldBytes?: number;
}
