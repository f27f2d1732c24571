import { ServiceError } from '../../common/errors.js';
import type { InflightJob, JobKind, JobPhase } from '../api/index.js';

/** What a new job is: the facts stored with it, and the transient inputs only this process holds. */
export interface JobSpec {
  readonly requestId: string;
  readonly kind: JobKind;
  /** The lane (`auto` resolved); null when the slots of a batch use several. */
  readonly lane: string | null;
  readonly model: string | null;
  /** The accepted request as stored: JSON, no secrets, no image bytes. */
  readonly request: Readonly<Record<string, unknown>>;
  readonly inputs?: unknown;
  /** Multimode: how many outputs. */
  readonly slots?: number;
  /** Set when a restarted studio resumes the job. */
  readonly upstream?: { readonly operationId: string; readonly state: string | null } | null;
  readonly createdAt?: string;
}

/** A job this process is running: its cancel, its phase, and when it settles. */
export class RunningJob {
  private readonly controller = new AbortController();
  private currentPhase: JobPhase = 'queued';
  private finish!: () => void;
  /** Settles when the job has published its terminal event. */
  readonly settled = new Promise<void>((resolve) => (this.finish = resolve));
  readonly startedAt = new Date().toISOString();
  upstream: { operationId: string; state: string | null } | null;
  /** Shutdown leaves a resumable job unfinished in the store, to run again at the next start. */
  detached = false;

  constructor(readonly spec: JobSpec) {
    this.upstream = spec.upstream ? { ...spec.upstream } : null;
  }

  get requestId(): string {
    return this.spec.requestId;
  }

  get kind(): JobKind {
    return this.spec.kind;
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

  /** Aborts the upstream call(s); the job then ends with JOB_CANCELLED and `message`. */
  cancel(message: string): void {
    if (this.signal.aborted) return;
    this.controller.abort(new ServiceError('JOB_CANCELLED', message, { details: { requestId: this.requestId } }));
  }

  markSettled(): void {
    this.finish();
  }

  info(): InflightJob {
    const { spec } = this;
    return {
      requestId: spec.requestId,
      kind: spec.kind,
      provider: spec.lane ?? spec.kind,
      ...(spec.model ? { model: spec.model } : {}),
      phase: this.currentPhase,
      startedAt: this.startedAt,
      ...(spec.slots !== undefined ? { slots: spec.slots } : {}),
      cancelling: this.signal.aborted,
    };
  }
}
