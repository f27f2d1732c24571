// What the manager knows about one worker: its latest message, agent state,
// queue, goal and orchestration phase, per worker and per session, kept up
// to date from the worker's events and re-read from its HTTP state when the
// event stream cannot be trusted (first connect, replay gap).
import type { ChannelEvent } from '../common/events/types.js';
import { MANAGER_LIMITS } from './limits.js';
import type {
  AgentState,
  GoalView,
  Health,
  HealthSample,
  MessageView,
  OrcView,
  QueueView,
  RecentEvent,
  SessionView,
  TurnView,
} from './views.js';

export type { AgentState, GoalView, Health, HealthSample, MessageView, OrcView, QueueView, RecentEvent, SessionView } from './views.js';

// Everything a worker sends is untrusted: each kept string is bounded here, ids
// longer than the field cap are ignored, other strings cut (MANAGER_LIMITS).
const FIELD = MANAGER_LIMITS.workerFieldMaxChars;
const PREVIEW = MANAGER_LIMITS.messagePreviewChars;
const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);
/** A string, cut to `max` characters (default: the field cap). */
const str = (value: unknown, max: number = FIELD): string | undefined => (typeof value === 'string' ? cut(value, max) : undefined);
/** An id: a non-empty string within the field cap, else nothing. */
const idOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= FIELD ? value : undefined;
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

function agentStateOf(queue: QueueView): AgentState {
  return queue.active ? 'running' : queue.pending > 0 ? 'waiting' : 'idle';
}

function messageView(fields: Record<string, unknown>, at: string): MessageView | undefined {
  const id = idOf(fields.id) ?? idOf(fields.messageId);
  const sessionId = idOf(fields.sessionId);
  if (!id || !sessionId) return undefined;
  const view: MessageView = {
    id,
    sessionId,
    role: str(fields.role) ?? 'assistant',
    content: str(fields.content, PREVIEW) ?? '',
    at: str(at) ?? '',
  };
  const traceId = idOf(fields.traceId);
  if (traceId) view.traceId = traceId;
  const status = str(fields.status);
  if (status) view.status = status;
  return view;
}

function goalView(value: unknown): GoalView | null {
  if (!value || typeof value !== 'object') return null;
  const goal = value as Record<string, unknown>;
  const goalId = idOf(goal.goalId) ?? idOf(goal.id);
  if (!goalId) return null;
  const view: GoalView = { goalId, objective: str(goal.objective, PREVIEW) ?? '', status: str(goal.status) ?? 'active' };
  if (idOf(goal.sessionId)) view.sessionId = idOf(goal.sessionId);
  if (typeof goal.continuations === 'number') view.continuations = num(goal.continuations);
  if (str(goal.autoStopped)) view.autoStopped = str(goal.autoStopped);
  if (str(goal.pauseGate)) view.pauseGate = str(goal.pauseGate);
  return view;
}

function orcView(value: Record<string, unknown>): OrcView {
  const view: OrcView = { phase: str(value.phase) ?? 'idle', status: str(value.status) ?? 'idle' };
  if (str(value.task)) view.task = str(value.task, PREVIEW);
  if (idOf(value.sessionId)) view.sessionId = idOf(value.sessionId);
  return view;
}

/** A recent event's description, in characters. */
const SUMMARY = 120;

function summarize(event: ChannelEvent): string {
  switch (event.event) {
    case 'message':
      return `${str(event.role)}: ${str(event.content, SUMMARY) ?? ''}`;
    case 'agent_output':
    case 'agent_thinking':
      return str(event.content, SUMMARY) ?? '';
    case 'agent_tool':
      return `tool ${str(event.name)}`;
    case 'agent_done':
      return `done ${str(event.status)}`;
    case 'queue_update':
      return `${event.active ? 'running' : 'idle'}, ${num(event.pending)} waiting`;
    case 'orc_state':
      return `${str(event.phase)} (${str(event.status)})`;
    case 'replay_gap':
      return `replay gap (${str(event.reason)})`;
    default:
      return str(event.reason, SUMMARY) ?? str(event.prompt, SUMMARY) ?? str(event.goalId, SUMMARY) ?? str(event.sessionId, SUMMARY) ?? '';
  }
}

/** A worker's state from its `GET /api/status` and sessions, as the snapshot reader gathers it (not yet bounded). */
export interface WorkerSnapshot {
  currentSessionId?: string;
  queues: Array<{ sessionId: string; queue: QueueView }>;
  goal: unknown;
  orc?: Record<string, unknown>;
  sessions: Array<{ sessionId: string; title?: string; lastMessage?: Record<string, unknown> }>;
  version?: string;
  demo?: boolean;
}

const IDLE_QUEUE: QueueView = { pending: 0, active: false };

/** A queue from the worker, bounded. */
function queueView(pending: unknown, active: boolean, activeTraceId: unknown): QueueView {
  const queue: QueueView = { pending: num(pending), active };
  const traceId = idOf(activeTraceId);
  if (traceId) queue.activeTraceId = traceId;
  return queue;
}

/**
 * The cache of one worker. Bounded whatever the worker sends: strings are
 * capped (above), at most `sessionsMax` sessions are kept (the least recently
 * active is forgotten first), and the worker-wide agent state is kept as
 * counts updated with each session's, so a summary costs the same with one
 * session or with the cap.
 */
export class WorkerState {
  health: Health = 'connecting';
  lastSeen: string | undefined;
  /** When the worker's state was last (re)read over HTTP. */
  snapshotAt: string | undefined;
  currentSessionId: string | undefined;
  latestMessage: MessageView | undefined;
  goal: GoalView | null = null;
  orc: OrcView = { phase: 'idle', status: 'idle' };
  version: string | undefined;
  demo: boolean | undefined;
  lastError: string | undefined;
  /** In order of last activity, least recent first. */
  readonly sessions = new Map<string, SessionView>();
  readonly recent: RecentEvent[] = [];
  /** Finished turns, oldest first (bounded). */
  readonly turns: TurnView[] = [];
  readonly healthHistory: HealthSample[] = [];
  /** Sessions per agent state other than idle: the worker-wide state without a scan. */
  private readonly counts: Record<Exclude<AgentState, 'idle'>, number> = { running: 0, waiting: 0 };

  /** Whether the cache keeps this as an id (the snapshot asks the worker about those only). */
  static isId(value: unknown): value is string {
    return idOf(value) !== undefined;
  }

  /**
   * Applies one event of the worker's channel; true when the cached state changed.
   * `replayed`: it comes from the worker's replay, read when the manager first followed it.
   */
  apply(event: ChannelEvent, at = new Date().toISOString(), replayed = false): boolean {
    this.lastSeen = at;
    this.remember(event, at, replayed);
    const sessionId = idOf(event.sessionId);
    switch (event.event) {
      case 'message': {
        const message = messageView(event, at);
        if (!message) return false;
        const session = this.session(message.sessionId, at);
        session.lastMessage = message;
        if (message.role === 'assistant') delete session.liveOutput;
        this.latestMessage = message;
        return true;
      }
      case 'agent_output': {
        if (!sessionId) return false;
        const session = this.session(sessionId, at);
        const tail = MANAGER_LIMITS.liveOutputChars;
        session.liveOutput = ((session.liveOutput ?? '') + (str(event.content, tail) ?? '')).slice(-tail);
        this.setAgentState(session, 'running');
        return true;
      }
      case 'agent_done': {
        if (!sessionId) return false;
        const done = { traceId: idOf(event.traceId) ?? '', status: str(event.status) ?? '' };
        this.session(sessionId, at).lastDone = done;
        this.turns.push({ ...done, at, sessionId });
        if (this.turns.length > MANAGER_LIMITS.turnsMax) this.turns.shift();
        return true;
      }
      case 'queue_update': {
        if (!sessionId) return false;
        this.setQueue(this.session(sessionId, at), queueView(event.pending, event.active === true, event.activeTraceId));
        return true;
      }
      case 'session_switched':
        this.currentSessionId = sessionId;
        if (sessionId) this.session(sessionId, at);
        return true;
      case 'goal_update':
        this.goal = goalView(event.goal);
        return true;
      case 'orc_state':
        this.orc = orcView(event);
        return true;
      default:
        // Other events (tool calls, goal notices) are only kept in the recent list.
        return false;
    }
  }

  /** Replaces what events built with the worker's own state. */
  applySnapshot(snapshot: WorkerSnapshot, at = new Date().toISOString()): void {
    this.snapshotAt = at;
    this.lastSeen = at;
    this.currentSessionId = idOf(snapshot.currentSessionId);
    this.goal = goalView(snapshot.goal);
    if (snapshot.orc) this.orc = orcView(snapshot.orc);
    this.setVersion(snapshot.version);
    if (snapshot.demo !== undefined) this.demo = snapshot.demo;
    const queues = new Map<string, QueueView>();
    for (const { sessionId, queue } of snapshot.queues.slice(0, MANAGER_LIMITS.sessionsMax)) {
      if (idOf(sessionId)) queues.set(sessionId, queueView(queue.pending, queue.active, queue.activeTraceId));
    }
    for (const session of this.sessions.values()) {
      // A session not in the queue list is idle now.
      this.setQueue(session, queues.get(session.sessionId) ?? IDLE_QUEUE);
      if (!session.queue.active) delete session.liveOutput;
    }
    for (const entry of snapshot.sessions.slice(0, MANAGER_LIMITS.snapshotSessionsMax)) {
      if (!idOf(entry.sessionId)) continue;
      const session = this.session(entry.sessionId, at);
      if (entry.title !== undefined) session.title = str(entry.title);
      const message = entry.lastMessage ? messageView(entry.lastMessage, str(entry.lastMessage.createdAt) ?? at) : undefined;
      // An event that arrived while the state was read may be newer than what was read.
      if (message && !(session.lastMessage && session.lastMessage.at > message.at)) session.lastMessage = message;
      this.setQueue(session, queues.get(entry.sessionId) ?? IDLE_QUEUE);
    }
    for (const [sessionId, queue] of queues) this.setQueue(this.session(sessionId, at), queue);
    for (const session of this.sessions.values()) {
      const message = session.lastMessage;
      if (message && (!this.latestMessage || message.at >= this.latestMessage.at)) this.latestMessage = message;
    }
  }

  setVersion(version: string | undefined): void {
    if (version) this.version = str(version);
  }

  recordHealth(sample: HealthSample): void {
    this.healthHistory.push(sample);
    if (this.healthHistory.length > MANAGER_LIMITS.healthHistoryMax) this.healthHistory.shift();
    if (sample.ok) this.lastSeen = sample.at;
  }

  /** The worker-wide agent state: running if any session runs, else waiting if any waits. */
  agentState(): AgentState {
    return this.counts.running > 0 ? 'running' : this.counts.waiting > 0 ? 'waiting' : 'idle';
  }

  /** The queue of the current session (or of no session: empty). */
  queue(): QueueView {
    return (this.currentSessionId && this.sessions.get(this.currentSessionId)?.queue) || IDLE_QUEUE;
  }

  private setQueue(session: SessionView, queue: QueueView): void {
    session.queue = queue;
    this.setAgentState(session, agentStateOf(queue));
  }

  private setAgentState(session: SessionView, state: AgentState): void {
    if (session.agentState !== 'idle') this.counts[session.agentState] -= 1;
    session.agentState = state;
    if (state !== 'idle') this.counts[state] += 1;
  }

  /** The session, created if new (forgetting the least recently active one past the cap), now the most recent. */
  private session(sessionId: string, at: string): SessionView {
    let session = this.sessions.get(sessionId);
    if (session) {
      this.sessions.delete(sessionId);
    } else {
      session = { sessionId, agentState: 'idle', queue: IDLE_QUEUE, updatedAt: at };
      if (this.sessions.size >= MANAGER_LIMITS.sessionsMax) this.forgetLeastRecent();
    }
    this.sessions.set(sessionId, session);
    session.updatedAt = at;
    return session;
  }

  private forgetLeastRecent(): void {
    for (const session of this.sessions.values()) {
      if (session.sessionId === this.currentSessionId) continue;
      this.setAgentState(session, 'idle');
      this.sessions.delete(session.sessionId);
      return;
    }
  }

  private remember(event: ChannelEvent, at: string, replayed: boolean): void {
    const entry: RecentEvent = {
      at,
      event: str(event.event) ?? '',
      topic: str(event.topic) ?? '',
      summary: cut(summarize(event), SUMMARY),
    };
    const sessionId = idOf(event.sessionId);
    if (sessionId) entry.sessionId = sessionId;
    if (replayed) entry.replayed = true;
    this.recent.push(entry);
    if (this.recent.length > MANAGER_LIMITS.recentEventsMax) this.recent.shift();
  }
}
