import { ServiceError } from '../errors.js';
import type { JobKind, JobPhase, JobRequestOf } from '../api/index.js';
import type { UpstreamOperation } from '../lanes/types.js';
import type { ReferenceImage } from '../references.js';
import type { HeldInputs } from './handlers.js';

/** What a new job is: the facts stored with it, and the decoded inputs only this process holds. */
export interface JobSpec<K extends JobKind = JobKind> {
  readonly requestId: string;
  readonly kind: K;
  /** The lane (`auto` resolved); null when the slots of a batch use several. */
  readonly lane: string | null;
  readonly model: string | null;
  /** The accepted request as stored: JSON, no secrets, input images as descriptors. */
  readonly request: JobRequestOf<K>;
  /** Decoded inputs for the handler, while this process holds them. */
  readonly inputs?: HeldInputs[K];
  /** The input images to store with the job (content-addressed), so it can wait or be retried. */
  readonly inputImages?: readonly ReferenceImage[];
  /** Higher runs first (default 0). */
  readonly priority?: number;
  /** Jobs of one key run one at a time, in the order they came (an agent session's turns). */
  readonly orderingKey?: string | null;
  /** Of the client's body: the same requestId with the same body is the same job. */
  readonly fingerprint?: string | null;
  readonly attempt?: number;
  /** The first attempt's requestId, for a retry. */
  readonly retryOf?: string | null;
}

/** A job this process runs now: its cancel, its phase, and when it settles. */
export class RunningJob {
  private readonly controller = new AbortController();
  private currentPhase: JobPhase;
  private finish!: () => void;
  /** Settles when the job has published its terminal event (or was detached). */
  readonly settled = new Promise<void>((resolve) => (this.finish = resolve));
  /** Shutdown leaves a resumable job unfinished in the store, to continue at the next start. */
  detached = false;
  /** This run ended at a park: the job goes on when a claim takes it again. */
  parked = false;

  constructor(
    readonly requestId: string,
    readonly kind: JobKind,
    readonly lane: string | null,
    readonly model: string | null,
    readonly request: JobRequestOf<JobKind>,
    readonly inputs: HeldInputs[JobKind] | undefined,
    /** Set by a resumed job's row, then by the handler once it records one. */
    public operation: UpstreamOperation | null,
    readonly deadline: number,
    phase: JobPhase | null,
    /** Status calls made in its runs before this one. */
    readonly polls = 0,
  ) {
    this.currentPhase = phase ?? 'queued';
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get phase(): JobPhase {
    return this.currentPhase;
  }

  setPhase(phase: JobPhase): void {
    this.currentPhase = phase;
  }

  /** Aborts the upstream call(s) and any wait; the job then ends with JOB_CANCELLED and `message`. */
  cancel(message: string): void {
    if (this.signal.aborted) return;
    this.controller.abort(new ServiceError('JOB_CANCELLED', message, { details: { requestId: this.requestId } }));
  }

  markSettled(): void {
    this.finish();
  }
}
