// The normalized stream every agent program is turned into, and the small
// interface each program's adapter implements.

/** How a run ended. `ok` only when the program reported success and exited 0. */
export const DONE_STATUSES = ['ok', 'error', 'cancelled', 'interrupted', 'timeout', 'crashed'] as const;
export type DoneStatus = (typeof DONE_STATUSES)[number];

export interface ThinkingEvent {
  type: 'thinking';
  content: string;
}
export interface TextEvent {
  type: 'text';
  content: string;
}
export interface ToolEvent {
  type: 'tool';
  name: string;
  input: Record<string, unknown>;
}
export interface DoneEvent {
  type: 'done';
  status: DoneStatus;
  /** Why a run did not end `ok` (absent on `ok`). */
  reason?: string;
}

/** What a run produces before it ends. */
export type OutputEvent = ThinkingEvent | TextEvent | ToolEvent;
export type NormalizedEvent = OutputEvent | DoneEvent;

/** The program's own final verdict (its result / turn-end line). */
export interface AgentReport {
  status: 'ok' | 'error';
  reason?: string;
}

/** One run's parser state: fed parsed NDJSON objects in order. */
export interface StreamNormalizer {
  /** One JSON object from stdout → zero or more output events. Unknown types give none. */
  accept(line: Record<string, unknown>): OutputEvent[];
  /** Set once the program wrote its final line. */
  readonly report: AgentReport | undefined;
  /** The program's own conversation id (for resuming), once announced. */
  readonly nativeSessionId: string | undefined;
}

export interface InvocationOptions {
  /** The program's conversation id from an earlier run of the same chat session. */
  resumeId?: string;
}

export interface AgentAdapter {
  /** Human label shown in the UI and `/agents`. */
  readonly label: string;
  /** Which output format it speaks (a contract section), for docs and `/agents`. */
  readonly protocol: string;
  /** Whether `args` honours `resumeId`. */
  readonly resumes: boolean;
  /**
   * Arguments after the program path for one prompt. The prompt is exactly one
   * element, placed after the options so it can never be read as a flag.
   */
  args(prompt: string, options: InvocationOptions): string[];
  createNormalizer(): StreamNormalizer;
}
