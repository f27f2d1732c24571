import type { LaneEnv } from './env.js';

// The text capability of a lane (shaped like the AI SDK's language model):
// instructions and a conversation in, one text answer out, streamed as it
// arrives. The prompt builder and Agent Mode's planner route over the lanes
// that declare one (`LaneModule.text`); credentials, refreshes, budgets,
// masking and error codes stay the lane's own. Versioned like the image one.

export interface TextMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** One text call, its model already one of the text model's. */
export interface TextCall {
  readonly model: string;
  readonly instructions: string;
  /** The conversation, oldest first; the last one is the user's. */
  readonly messages: readonly TextMessage[];
  /** Look things up on the web first. Honoured where the text model's `webSearch` is true, ignored elsewhere. */
  readonly webSearch?: boolean;
  /**
   * The answer's text as it arrives, in order; the pieces joined are the answer's text. A lane that
   * answers in one piece calls it once (never with an empty piece).
   */
  readonly onDelta?: (delta: string) => void;
}

/** The running call as a text model sees it: its cancel signal and when its time is up. */
export interface TextJob {
  readonly signal: AbortSignal;
  /** ms since the epoch. */
  readonly deadline: number;
}

export interface TextAnswer {
  readonly text: string;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
}

/** A model a text capability offers (the builder's model pickers). */
export interface TextModelEntry {
  readonly id: string;
  readonly label?: string;
  readonly description?: string;
}

export interface TextModel {
  readonly specificationVersion: 'v1';
  readonly models: readonly TextModelEntry[];
  /** One of `models`: what runs when the caller names none. */
  readonly defaultModel: string;
  /** It can search the web before answering (a call's `webSearch` is honoured). */
  readonly webSearch: boolean;
  /** Answers the conversation; errors in the lane's codes. */
  readonly generate: (ctx: LaneEnv, call: TextCall, job: TextJob) => Promise<TextAnswer>;
}
