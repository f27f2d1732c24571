// What the manager knows about one worker: its latest message, agent state,
// queue, goal and orchestration phase, per worker and per session, kept up
// to date from the worker's events and re-read from its HTTP state when the
// event stream cannot be trusted (first connect, replay gap).
import type { ChannelEvent } from '../common/events/types.js';
import { MANAGER_LIMITS } from './limits.js';
import type { AgentState, GoalView, Health, HealthSample, MessageView, OrcView, QueueView, RecentEvent, SessionView } from './views.js';

export type { AgentState, GoalView, Health, HealthSample, MessageView, OrcView, QueueView, RecentEvent, SessionView } from './views.js';

const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function agentStateOf(queue: QueueView): AgentState {
  return queue.active ? 'running' : queue.pending > 0 ? 'waiting' : 'idle';
}

function messageView(fields: Record<string, unknown>, at: string): MessageView | undefined {
  const id = str(fields.id) ?? str(fields.messageId);
  const sessionId = str(fields.sessionId);
  if (!id || !sessionId) return undefined;
  const view: MessageView = { id, sessionId, role: str(fields.role) ?? 'assistant', content: cut(str(fields.content) ?? '', MANAGER_LIMITS.messagePreviewChars), at };
  const traceId = str(fields.traceId);
  if (traceId) view.traceId = traceId;
  const status = str(fields.status);
  if (status) view.status = status;
  return view;
}

function goalView(value: unknown): GoalView | null {
  if (!value || typeof value !== 'object') return null;
  const goal = value as Record<string, unknown>;
  const goalId = str(goal.goalId) ?? str(goal.id);
  if (!goalId) return null;
  const view: GoalView = { goalId, objective: str(goal.objective) ?? '', status: str(goal.status) ?? 'active' };
  if (str(goal.sessionId)) view.sessionId = str(goal.sessionId);
  if (typeof goal.continuations === 'number') view.continuations = goal.continuations;
  if (str(goal.autoStopped)) view.autoStopped = str(goal.autoStopped);
  if (str(goal.pauseGate)) view.pauseGate = str(goal.pauseGate);
  return view;
}

function orcView(value: Record<string, unknown>): OrcView {
  const view: OrcView = { phase: str(value.phase) ?? 'idle', status: str(value.status) ?? 'idle' };
  if (str(value.task)) view.task = str(value.task);
  if (str(value.sessionId)) view.sessionId = str(value.sessionId);
  return view;
}

function summarize(event: ChannelEvent): string {
  switch (event.event) {
    case 'message':
      return `${str(event.role)}: ${cut(str(event.content) ?? '', 120)}`;
    case 'agent_output':
    case 'agent_thinking':
      return cut(str(event.content) ?? '', 120);
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
      return str(event.reason) ?? str(event.prompt) ?? str(event.goalId) ?? str(event.sessionId) ?? '';
  }
}

/** A worker's state from its `GET /api/status` and sessions, as the snapshot reader gathers it. */
export interface WorkerSnapshot {
  currentSessionId?: string;
  queues: Array<{ sessionId: string; queue: QueueView }>;
  goal: unknown;
  orc?: Record<string, unknown>;
  sessions: Array<{ sessionId: string; title?: string; lastMessage?: Record<string, unknown> }>;
  version?: string;
  demo?: boolean;
}

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
  readonly sessions = new Map<string, SessionView>();
  readonly recent: RecentEvent[] = [];
  readonly healthHistory: HealthSample[] = [];

  /** Applies one event of the worker's channel; true when the cached state changed. */
  apply(event: ChannelEvent, at = new Date().toISOString()): boolean {
    this.lastSeen = at;
    this.remember(event, at);
    const sessionId = str(event.sessionId);
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
        session.liveOutput = (session.liveOutput ?? '') + (str(event.content) ?? '');
        if (session.liveOutput.length > MANAGER_LIMITS.liveOutputChars) session.liveOutput = session.liveOutput.slice(-MANAGER_LIMITS.liveOutputChars);
        session.agentState = 'running';
        return true;
      }
      case 'agent_done': {
        if (!sessionId) return false;
        this.session(sessionId, at).lastDone = { traceId: str(event.traceId) ?? '', status: str(event.status) ?? '' };
        return true;
      }
      case 'queue_update': {
        if (!sessionId) return false;
        const session = this.session(sessionId, at);
        session.queue = { pending: num(event.pending), active: event.active === true, ...(str(event.activeTraceId) && { activeTraceId: str(event.activeTraceId) }) };
        session.agentState = agentStateOf(session.queue);
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
    this.currentSessionId = snapshot.currentSessionId;
    this.goal = goalView(snapshot.goal);
    if (snapshot.orc) this.orc = orcView(snapshot.orc);
    if (snapshot.version) this.version = snapshot.version;
    if (snapshot.demo !== undefined) this.demo = snapshot.demo;
    const queues = new Map(snapshot.queues.map((entry) => [entry.sessionId, entry.queue]));
    for (const session of this.sessions.values()) {
      // A session not in the queue list is idle now.
      session.queue = queues.get(session.sessionId) ?? { pending: 0, active: false };
      session.agentState = agentStateOf(session.queue);
      if (!session.queue.active) delete session.liveOutput;
    }
    for (const entry of snapshot.sessions) {
      const session = this.session(entry.sessionId, at);
      if (entry.title !== undefined) session.title = entry.title;
      const message = entry.lastMessage ? messageView(entry.lastMessage, str(entry.lastMessage.createdAt) ?? at) : undefined;
      // An event that arrived while the state was read may be newer than what was read.
      if (message && !(session.lastMessage && session.lastMessage.at > message.at)) session.lastMessage = message;
      session.queue = queues.get(entry.sessionId) ?? { pending: 0, active: false };
      session.agentState = agentStateOf(session.queue);
    }
    for (const [sessionId, queue] of queues) {
      const session = this.session(sessionId, at);
      session.queue = queue;
      session.agentState = agentStateOf(queue);
    }
    const latest = [...this.sessions.values()].map((session) => session.lastMessage).filter((message): message is MessageView => message !== undefined);
    latest.sort((a, b) => a.at.localeCompare(b.at));
    this.latestMessage = latest.at(-1) ?? this.latestMessage;
  }

  recordHealth(sample: HealthSample): void {
    this.healthHistory.push(sample);
    if (this.healthHistory.length > MANAGER_LIMITS.healthHistoryMax) this.healthHistory.shift();
    if (sample.ok) this.lastSeen = sample.at;
  }

  /** The worker-wide agent state: running if any session runs, else waiting if any waits. */
  agentState(): AgentState {
    let state: AgentState = 'idle';
    for (const session of this.sessions.values()) {
      if (session.agentState === 'running') return 'running';
      if (session.agentState === 'waiting') state = 'waiting';
    }
    return state;
  }

  /** The queue of the current session (or of no session: empty). */
  queue(): QueueView {
    return (this.currentSessionId && this.sessions.get(this.currentSessionId)?.queue) || { pending: 0, active: false };
  }

  private session(sessionId: string, at: string): SessionView {
    let session = this.sessions.get(sessionId);
    if (!session) this.sessions.set(sessionId, (session = { sessionId, agentState: 'idle', queue: { pending: 0, active: false }, updatedAt: at }));
    session.updatedAt = at;
    return session;
  }

  private remember(event: ChannelEvent, at: string): void {
    const entry: RecentEvent = { at, event: event.event, topic: event.topic, summary: summarize(event) };
    const sessionId = str(event.sessionId);
    if (sessionId) entry.sessionId = sessionId;
    this.recent.push(entry);
    if (this.recent.length > MANAGER_LIMITS.recentEventsMax) this.recent.shift();
  }
}
