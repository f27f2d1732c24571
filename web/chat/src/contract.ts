// The chat server's shapes as the page reads them (src/chat/contract.ts holds
// the server's own declarations; the rest are the routes' answers and the
// public events of docs/API.md, "svc-chat").
import type { ChatMessage, ChatSession, DoneStatus, QueueState } from '../../../src/chat/contract';
import type { OrcState } from '../../../src/chat/orchestration/phases';

export type { ChatMessage, ChatSession, DoneStatus, OrcState, QueueState };

/** The fields of the server's GoalSummary the page shows (the goal is instance-wide: one at a time). */
export interface GoalView {
  goalId: string;
  objective: string;
  status: 'active' | 'paused' | 'done' | 'cancelled';
  /** The session its automatic turns run in. */
  sessionId: string;
  continuations: number;
  pauseGate?: string;
  autoStopped?: string;
}

export interface AgentInfo {
  id: string;
  label: string;
  available: boolean;
}

export interface SessionsAnswer {
  sessions: ChatSession[];
  currentSessionId: string;
}
export interface MessagesAnswer {
  messages: ChatMessage[];
  queue?: QueueState;
}
export interface StatusAnswer {
  currentSessionId: string;
  goal: GoalView | null;
  orc: OrcState | null;
}
export interface AgentsAnswer {
  agents: AgentInfo[];
  defaultAgent: string;
}

/** One line of the NDJSON answer of POST /api/message and /api/command. */
export type StreamLine =
  | { type: 'accepted'; traceId: string; sessionId: string }
  | { type: 'thinking' | 'text'; content: string }
  | { type: 'tool'; name: string; input: Record<string, unknown> }
  | { type: 'done'; status: DoneStatus; reason?: string };
