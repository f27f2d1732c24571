import type { ImageFormat, JobKind, JobPhase, JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { UpstreamOperation } from '../lanes/types.js';
import type { GenerationEvents } from './events.js';

// What a job kind is: a handler registered by kind that runs a stored job.
// What a kind declares once: whether its jobs can resume from a recorded
// operation, its time budget, and whether its first upstream call follows
// its start at once (then the start is the billing checkpoint).

/** A job as its handler receives it: the stored row's facts plus what runs it now. */
export interface JobContext {
  readonly requestId: string;
  readonly kind: JobKind;
  readonly lane: string | null;
  readonly model: string | null;
  /** The accepted request, as stored (JSON: no secrets, input images as descriptors). */
  readonly request: Readonly<Record<string, unknown>>;
  /** Decoded input images when the job was created in this process; absent otherwise (the handler loads them). */
  readonly inputs: unknown;
  /** The upstream operation recorded by an earlier run (a resumed job), else null. */
  readonly operation: UpstreamOperation | null;
  /** When the job's time is up (ms since the epoch), stored at its first start. */
  readonly deadline: number;
  /** Aborted when the job is cancelled. */
  readonly signal: AbortSignal;
  readonly events: GenerationEvents;
  /** Publishes and records a phase (`slot` inside a batch). */
  phase(phase: JobPhase, fields?: { slot?: number; provider?: string; model?: string }): void;
  partial(image: { index: number; b64: string; format: ImageFormat; slot?: number }): void;
  /** The billing checkpoint: the first billable upstream call is about to be sent. */
  sending(): void;
  /** Stores the upstream operation (before any status call), with its id and state for readers. */
  recordOperation(operation: UpstreamOperation, id: string, state: string | null): void;
  /** The vendor's state of the operation changed. */
  upstreamState(state: string | null): void;
  /** Waits (state `waiting`, the time stored) until `at`; rejects with the cancel reason. */
  waitUntil(at: number): Promise<void>;
  /** Records whether the vendor confirmed a cancel. */
  cancelConfirmed(confirmed: boolean): void;
}

/** A stored job as the handler judges it. */
export interface StoredJob {
  readonly kind: JobKind;
  readonly request: Readonly<Record<string, unknown>>;
  readonly operation: UpstreamOperation | null;
}

export interface JobHandler {
  readonly kinds: readonly JobKind[];
  /**
   * Whether this job continues after a restart from its recorded operation.
   * Jobs that cannot, and may have reached their upstream, end `interrupted`.
   */
  canResume(job: StoredJob): boolean;
  /** Whether the job's first billable upstream call follows its start at once (its start is then the checkpoint). */
  reachesUpstreamAtStart(job: StoredJob): boolean;
  /** The job's time budget from its first start (ms). */
  budgetMs(ctx: StudioContext, job: StoredJob): number;
  run(ctx: StudioContext, job: JobContext): Promise<JobResult>;
}
