import type { ImageFormat, JobKind, JobPhase, JobRequestOf, JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { UpstreamOperation } from '../lanes/types.js';
import type { GenerationEvents } from './events.js';
import type { ImageInputs } from './plan.js';
import type { VideoInputs } from '../video/video-job.js';
import type { AgentTurnInputs } from '../agent/turn-inputs.js';

// What a job kind is: its stored request and result (zod schemas in the
// contract, api/jobs.ts) and its handler, one per kind in a table that names
// every kind. What a handler declares once: whether its jobs can resume from a
// recorded operation, its time budget, whether its first upstream call
// follows its start at once (then the start is the billing checkpoint), and a
// limit of its own for jobs that have no lane. The engine writes the last
// three on the job's row at submit: a claim reads them there.

/** A stored job as its handler judges it: its kind, its request typed by that kind, its operation. */
export interface StoredJob<K extends JobKind = JobKind> {
  readonly kind: K;
  readonly request: JobRequestOf<K>;
  readonly operation: UpstreamOperation | null;
}

/** What a kind's job holds in memory beside its stored request: decoded input images, while the process that accepted it runs it. */
export interface HeldInputs {
  readonly generate: ImageInputs;
  readonly edit: ImageInputs;
  readonly multimode: ImageInputs;
  readonly node: ImageInputs;
  readonly trace: never;
  readonly video: VideoInputs;
  readonly 'agent-turn': AgentTurnInputs;
  /** Its inputs are gallery files, read when they are uploaded. */
  readonly mcp: never;
}

/** A job as its handler receives it: the stored row's facts plus what runs it now. */
export interface JobContext<K extends JobKind = JobKind> extends StoredJob<K> {
  readonly requestId: string;
  readonly lane: string | null;
  readonly model: string | null;
  /** Decoded input images when the job was created in this process; absent otherwise (the handler loads them). */
  readonly inputs: HeldInputs[K] | undefined;
  /** When the job's time is up (ms since the epoch), stored at its first start. */
  readonly deadline: number;
  /** Status calls its steps made in the runs before this one (a parked job runs again from its operation). */
  readonly polls: number;
  /** Aborted when the job is cancelled. */
  readonly signal: AbortSignal;
  /** Shutdown left it unfinished, to continue at the next start: its abort is not a cancel upstream. */
  readonly detached: boolean;
  readonly events: GenerationEvents;
  /** Publishes and records a phase (`slot` inside a batch). */
  phase(phase: JobPhase, fields?: { slot?: number; provider?: string; model?: string; queuePosition?: number }): void;
  /** Records a phase without a `phase` event (a kind with events of its own: video). */
  recordPhase(phase: JobPhase): void;
  partial(image: { index: number; b64: () => string; format: ImageFormat; slot?: number }): void;
  /** The billing checkpoint: the first billable upstream call is about to be sent; settles once it is stored. */
  sending(): Promise<void>;
  /** Stores the upstream operation (before any status call), with its id and state for readers; settles once it is stored. */
  recordOperation(operation: UpstreamOperation, id: string, state: string | null): Promise<void>;
  /** The vendor's state of the operation changed. */
  upstreamState(state: string | null): void;
  /**
   * Waits (state `waiting`, the time stored) until `at`; rejects with the cancel reason. A job that
   * can resume from its recorded operation parks instead: this rejects with JobParked (its slot is
   * let go, its handler runs again when due); `polls` (status calls so far) is stored with it.
   */
  waitUntil(at: number, polls?: number): Promise<void>;
  /** Records whether the vendor confirmed a cancel. */
  cancelConfirmed(confirmed: boolean): void;
  /**
   * What the job keeps in memory across its runs in this process (after a park): made by `make` on
   * first use under `key`, dropped when the job ends. Only what a restart may lose (e.g. when its
   * progress last moved, whether an event went out already).
   */
  keep<T extends object>(key: string, make: () => T): T;
}

export interface JobHandler<K extends JobKind> {
  /**
   * Whether this job continues after a restart from its recorded operation.
   * Jobs that cannot, and may have reached their upstream, end `interrupted`.
   */
  canResume(job: StoredJob<K>): boolean;
  /** Whether the job's first billable upstream call follows its start at once (its start is then the checkpoint). */
  reachesUpstreamAtStart(job: StoredJob<K>): boolean;
  /** The job's time budget from its first start (ms). */
  budgetMs(ctx: StudioContext, job: StoredJob<K>): number;
  /** How many jobs of this kind run at once when they have no lane (a lane's limit counts otherwise); none when absent. */
  readonly maxRunning?: number;
  /** Runs the job; what it answers is stored and read back with its kind's result schema. */
  run(ctx: StudioContext, job: JobContext<K>): Promise<JobResult>;
}

/** Every kind's handler: a new kind does not exist until it has one. */
export type JobHandlers = { readonly [K in JobKind]: JobHandler<K> };
