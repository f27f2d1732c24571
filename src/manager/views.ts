// The manager's views of its workers, as its HTTP API and channel answer
// them. Plain types without imports: the dashboard (web/manager) imports them
// too, so they are declared once.

export type AgentState = 'idle' | 'running' | 'waiting';
export type Health = 'online' | 'offline' | 'connecting' | 'stopped';

export interface MessageView {
  id: string;
  sessionId: string;
  role: string;
  /** The start of the content (at most MANAGER_LIMITS.messagePreviewChars). */
  content: string;
  at: string;
  traceId?: string;
  status?: string;
}

export interface QueueView {
  pending: number;
  active: boolean;
  activeTraceId?: string;
}

export interface SessionView {
  sessionId: string;
  title?: string;
  lastMessage?: MessageView;
  agentState: AgentState;
  queue: QueueView;
  /** The tail of the running answer. */
  liveOutput?: string;
  lastDone?: { traceId: string; status: string };
  updatedAt: string;
}

export interface GoalView {
  goalId: string;
  objective: string;
  status: string;
  sessionId?: string;
  continuations?: number;
  autoStopped?: string;
  pauseGate?: string;
}

export interface OrcView {
  phase: string;
  status: string;
  task?: string;
  sessionId?: string;
}

export interface HealthSample {
  at: string;
  ok: boolean;
  latencyMs?: number;
  error?: string;
}

export interface RecentEvent {
  at: string;
  event: string;
  topic: string;
  sessionId?: string;
  /** A short description for people. */
  summary: string;
  /** From the worker's replay when the manager first followed it: `at` is when it was read, not when it happened. */
  replayed?: boolean;
}

/** One finished turn (an agent run) of a worker, for its timeline. */
export interface TurnView {
  traceId: string;
  /** How it ended: `ok`, `error`, `cancelled`, `interrupted`, `timeout`, `crashed`. */
  status: string;
  at: string;
  sessionId?: string;
}

export type InstanceSource = 'added' | 'discovered' | 'launched';

/** One worker as the dashboard sees it. */
export interface InstanceSummary {
  id: string;
  url: string | null;
  source: InstanceSource;
  /** Launched by this manager: it can start, stop and restart it. */
  managed: boolean;
  running?: boolean;
  health: Health;
  lastSeen: string | null;
  version?: string;
  demo?: boolean;
  currentSessionId: string | null;
  latestMessage: MessageView | null;
  agentState: AgentState;
  queue: QueueView;
  goal: GoalView | null;
  orc: OrcView;
  sessionCount: number;
  /** The last finished turns, oldest first (at most MANAGER_LIMITS.turnsMax). */
  turns: TurnView[];
  lastError?: string;
}

export interface InstanceDetail extends InstanceSummary {
  sessions: SessionView[];
}
