import { connectEvents, type EventConnection } from '../common/events/client.js';
import type { ChannelEvent } from '../common/events/types.js';
import { maskSecrets } from '../common/secrets.js';
import { MANAGER_LIMITS } from './limits.js';
import { getWorkerJson, type WorkerHealth } from './worker-client.js';
import { WorkerState, type QueueView, type WorkerSnapshot } from './worker-state.js';

export interface FollowerOptions {
  origin: string;
  token?: string;
  healthIntervalMs: number;
  /** Called after every change of the cached state (event, snapshot, health), with what changed. */
  onChange(change: string, event?: ChannelEvent): void;
}

interface StatusBody {
  currentSessionId?: string;
  queues?: Array<{ sessionId: string; active: unknown; pending: number }>;
  goal?: unknown;
  orc?: Record<string, unknown>;
}
interface SessionsBody {
  sessions: Array<{ id: string; title?: string; updatedAt?: string }>;
  currentSessionId?: string;
}
interface MessagesBody {
  messages: Array<Record<string, unknown>>;
  queue?: QueueView;
}

/**
 * Follows one worker server-side: its `GET /api/events` through the shared
 * event client (reconnect with back-off, resume with Last-Event-ID), its
 * state re-read over HTTP when the stream opens for the first time and after
 * a `replay_gap`, and its health polled. Everything lands in `state`.
 */
export class WorkerFollower {
  readonly state = new WorkerState();
  private connection: EventConnection | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private readonly controller = new AbortController();
  private sseOpen = false;
  private healthOk: boolean | undefined;
  private snapshotting: Promise<void> | undefined;
  private snapshotAgain = false;

  constructor(private readonly options: FollowerOptions) {}

  start(): void {
    this.connection = connectEvents(`${this.options.origin}/api/events`, {
      headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
      signal: this.controller.signal,
      onEvent: (event) => this.onEvent(event),
      onStatus: (status) => {
        this.sseOpen = status === 'open';
        // The first open, and every open after a break: anything may have changed meanwhile
        // (a restarted worker has a new channel; its cursor gets a replay_gap, handled too).
        if (status === 'open') void this.snapshot();
        this.updateHealth();
      },
      onError: (error) => {
        this.state.lastError = maskSecrets(String((error as Error)?.message ?? error), [this.options.token]);
      },
      // The worker's heartbeat is 15 s; a break is noticed by the socket closing or the health poll.
      idleTimeoutMs: 45_000,
      maxReconnectDelayMs: 5000,
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
    this.connection?.close();
    this.sseOpen = false;
  }

  /** Marks the worker as stopped on purpose (a launched worker the manager stopped). */
  markStopped(): void {
    this.state.health = 'stopped';
    this.options.onChange('health');
  }

  private onEvent(event: ChannelEvent): void {
    if (event.topic === 'system' && event.event === 'replay_gap') {
      this.state.apply(event);
      void this.snapshot();
      return;
    }
    if (this.state.apply(event)) this.options.onChange(event.event, event);
  }

  private updateHealth(): void {
    const health = this.sseOpen && this.healthOk !== false ? 'online' : this.healthOk === undefined && !this.sseOpen && this.state.lastSeen === undefined ? 'connecting' : 'offline';
    if (health === this.state.health) return;
    this.state.health = health;
    this.options.onChange('health');
  }

  private async pollHealth(): Promise<void> {
    const started = performance.now();
    const at = new Date().toISOString();
    try {
      const health = await getWorkerJson<WorkerHealth>(this.options.origin, '/api/health', this.options.token, this.controller.signal);
      if (health.service !== 'svc-chat') throw new Error('not an agent chat server');
      this.healthOk = true;
      this.state.version = health.version;
      this.state.recordHealth({ at, ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 });
    } catch (error) {
      if (this.controller.signal.aborted) return;
      this.healthOk = false;
      this.state.recordHealth({ at, ok: false, error: maskSecrets(String((error as Error)?.message ?? error), [this.options.token]) });
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
          this.state.lastError = maskSecrets(String((error as Error)?.message ?? error), [this.options.token]);
        }
      } while (this.snapshotAgain && !this.controller.signal.aborted);
    })().finally(() => (this.snapshotting = undefined));
    return this.snapshotting;
  }

  private async readSnapshot(): Promise<WorkerSnapshot> {
    const get = <T>(path: string) => getWorkerJson<T>(this.options.origin, path, this.options.token, this.controller.signal);
    const [status, sessions, health] = await Promise.all([get<StatusBody>('/api/status'), get<SessionsBody>('/api/sessions'), get<WorkerHealth>('/api/health')]);
    const recent = sessions.sessions.slice(0, MANAGER_LIMITS.snapshotSessionsMax);
    const latest = await Promise.all(
      recent.map(async (session) => {
        const body = await get<MessagesBody>(`/api/sessions/${encodeURIComponent(session.id)}/messages?limit=1`);
        return { sessionId: session.id, title: session.title, lastMessage: body.messages.at(-1) };
      }),
    );
    return {
      currentSessionId: status.currentSessionId ?? sessions.currentSessionId,
      queues: (status.queues ?? []).map((entry) => {
        const queue: QueueView = { pending: entry.pending, active: entry.active !== null };
        const traceId = (entry.active as { traceId?: unknown } | null)?.traceId;
        if (typeof traceId === 'string') queue.activeTraceId = traceId;
        return { sessionId: entry.sessionId, queue };
      }),
      goal: status.goal ?? null,
      orc: status.orc,
      sessions: latest,
      version: health.version,
      demo: health.demo,
    };
  }
}
