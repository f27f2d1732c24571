import type { ChannelEvent } from '../common/events/types.js';
import { maskSecrets } from '../common/secrets.js';
import { MANAGER_LIMITS } from './limits.js';
import { followWorkerEvents } from './worker-events.js';
import { getWorkerJson } from './worker-http.js';
import { WorkerState, type QueueView, type WorkerSnapshot } from './worker-state.js';

export interface FollowerOptions {
  origin: string;
  token?: string;
  healthIntervalMs: number;
  /** Called after every change of the cached state (event, snapshot, health), with what changed. */
  onChange(change: string, event?: ChannelEvent): void;
}

/** The first connection's cursor: no worker issues it, so each answers with its whole replay buffer (see followWorkerEvents). */
export const BACKLOG_CURSOR = 'manager-backlog';

/** A worker's JSON as read: nothing in it is trusted to have the expected shape. */
type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
/** At most `max` items of what should be an array. */
const items = (value: unknown, max: number): Json[] => (Array.isArray(value) ? value.slice(0, max).map(object) : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Follows one worker server-side: its `GET /api/events` (followWorkerEvents:
 * reconnect with back-off, resume with Last-Event-ID, lines capped), its
 * state re-read over HTTP when the stream opens for the first time and after
 * a `replay_gap`, and its health polled. Everything lands in `state`.
 */
export class WorkerFollower {
  readonly state = new WorkerState();
  private healthTimer: NodeJS.Timeout | undefined;
  private readonly controller = new AbortController();
  private sseOpen = false;
  private healthOk: boolean | undefined;
  private snapshotting: Promise<void> | undefined;
  private snapshotAgain = false;
  /** While the worker's backlog (its replay on the first connection) is being read. */
  private replaying = false;

  constructor(private readonly options: FollowerOptions) {}

  start(): void {
    void followWorkerEvents({
      origin: this.options.origin,
      token: this.options.token,
      signal: this.controller.signal,
      firstCursor: BACKLOG_CURSOR,
      onEvent: (event) => this.onEvent(event),
      onStatus: (status) => {
        this.sseOpen = status === 'open';
        // The first open, and every open after a break: anything may have changed meanwhile
        // (a restarted worker has a new channel; its cursor gets a replay_gap, handled too).
        if (status === 'open') void this.snapshot();
        this.updateHealth();
      },
      onError: (error) => this.noteError(error),
    });
    const poll = () => {
      void this.pollHealth().finally(() => {
        if (!this.controller.signal.aborted) this.healthTimer = setTimeout(poll, this.options.healthIntervalMs);
      });
    };
    poll();
  }

  stop(): void {
    this.controller.abort();
    clearTimeout(this.healthTimer);
    this.sseOpen = false;
  }

  /** Marks the worker as stopped on purpose (a launched worker the manager stopped). */
  markStopped(): void {
    this.state.health = 'stopped';
    this.options.onChange('health');
  }

  private onEvent(event: ChannelEvent): void {
    if (event.topic === 'system' && event.event === 'replay_gap' && event.requestedId === BACKLOG_CURSOR) {
      this.readBacklog();
      return;
    }
    if (this.replaying) {
      this.state.apply(event, undefined, true);
      return;
    }
    if (event.topic === 'system' && event.event === 'replay_gap') {
      this.state.apply(event);
      void this.snapshot();
      return;
    }
    if (this.state.apply(event)) this.options.onChange(event.event, event);
  }

  /**
   * The worker's backlog follows the gap notice at once (its replay is written
   * in one piece before any live event): it fills the recent events and the
   * timeline without one change per event. The state is re-read after it, as
   * the replayed events may be older than the snapshot taken on open.
   */
  private readBacklog(): void {
    this.replaying = true;
    setImmediate(() => {
      this.replaying = false;
      this.options.onChange('backlog');
      void this.snapshot();
    });
  }

  private updateHealth(): void {
    const health =
      this.sseOpen && this.healthOk !== false
        ? 'online'
        : this.healthOk === undefined && !this.sseOpen && this.state.lastSeen === undefined
          ? 'connecting'
          : 'offline';
    if (health === this.state.health) return;
    this.state.health = health;
    this.options.onChange('health');
  }

  /** Error texts are ours, but may quote the worker: cut, and masked with its token. */
  private noteError(error: unknown): string {
    const message = maskSecrets(String((error as Error)?.message ?? error), [this.options.token]).slice(
      0,
      MANAGER_LIMITS.workerFieldMaxChars,
    );
    this.state.lastError = message;
    return message;
  }

  private async pollHealth(): Promise<void> {
    const started = performance.now();
    const at = new Date().toISOString();
    try {
      const health = object(await getWorkerJson(this.options.origin, '/api/health', this.options.token, this.controller.signal));
      if (health.service !== 'svc-chat') throw new Error('not an agent chat server');
      this.healthOk = true;
      this.state.setVersion(text(health.version));
      this.state.recordHealth({ at, ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 });
    } catch (error) {
      if (this.controller.signal.aborted) return;
      this.healthOk = false;
      this.state.recordHealth({ at, ok: false, error: this.noteError(error) });
    }
    this.updateHealth();
  }

  /** Re-reads the worker's state; calls made while one runs are folded into one more. */
  private snapshot(): Promise<void> {
    if (this.snapshotting) {
      this.snapshotAgain = true;
      return this.snapshotting;
    }
    this.snapshotting = (async () => {
      do {
        this.snapshotAgain = false;
        try {
          this.state.applySnapshot(await this.readSnapshot());
          this.options.onChange('snapshot');
        } catch (error) {
          if (this.controller.signal.aborted) return;
          this.noteError(error);
        }
      } while (this.snapshotAgain && !this.controller.signal.aborted);
    })().finally(() => (this.snapshotting = undefined));
    return this.snapshotting;
  }

  private async readSnapshot(): Promise<WorkerSnapshot> {
    const get = async (path: string) => object(await getWorkerJson(this.options.origin, path, this.options.token, this.controller.signal));
    const recentMax = MANAGER_LIMITS.snapshotSessionsMax;
    const [status, sessions, health] = await Promise.all([get('/api/status'), get(`/api/sessions?limit=${recentMax}`), get('/api/health')]);
    // Only ids the cache would keep are asked about (a path is never built from anything else).
    const recent = items(sessions.sessions, recentMax).filter((session) => WorkerState.isId(session.id));
    const latest = await Promise.all(
      recent.map(async (session) => {
        const body = await get(`/api/sessions/${encodeURIComponent(session.id as string)}/messages?limit=1`);
        const messages = Array.isArray(body.messages) ? body.messages : [];
        return {
          sessionId: session.id as string,
          title: text(session.title),
          lastMessage: messages.length > 0 ? object(messages.at(-1)) : undefined,
        };
      }),
    );
    return {
      currentSessionId: text(status.currentSessionId) ?? text(sessions.currentSessionId),
      queues: items(status.queues, MANAGER_LIMITS.sessionsMax).map((entry) => {
        const queue: QueueView = { pending: Number(entry.pending), active: entry.active !== null && entry.active !== undefined };
        const traceId = object(entry.active).traceId;
        if (typeof traceId === 'string') queue.activeTraceId = traceId;
        return { sessionId: text(entry.sessionId) ?? '', queue };
      }),
      goal: status.goal ?? null,
      orc: status.orc === undefined ? undefined : object(status.orc),
      sessions: latest,
      version: text(health.version),
      demo: typeof health.demo === 'boolean' ? health.demo : undefined,
    };
  }
}
