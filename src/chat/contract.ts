// The chat server's HTTP and event shapes that the page (web/chat) reads,
// declared once here. Types only, and imports of import-free type files only,
// so the browser app can type-check against them.
import type { DoneStatus } from './agents/types.js';

export type { DoneStatus };

export interface ChatSession {
  id: string;
  /** Empty until the first prompt names it. */
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
}

export type MessageRole = 'user' | 'assistant';

/** Who wrote an automatic user message: a goal's continuation or a PABCD phase prompt. */
export type AutomaticOrigin = 'goal' | 'orc';

/** A user message the server wrote itself, and what it was for. */
export interface Automatic {
  origin: AutomaticOrigin;
  /** For people, e.g. "automatic turn 2 of 5 for goal: ship it". */
  label: string;
}

export interface ChatMessage {
  id: string;
  sessionId: string;
  role: MessageRole;
  content: string;
  createdAt: string;
  agent?: string;
  traceId?: string;
  /** Assistant messages: how the run ended (`interrupted` = stopped by a steer, partial output). */
  status?: DoneStatus;
  reason?: string;
  /** Set on user messages the server wrote (absent: a person's). */
  automatic?: Automatic;
}

export interface QueueState {
  pending: number;
  active: boolean;
  /** The running run's trace id. */
  activeTraceId?: string;
}
