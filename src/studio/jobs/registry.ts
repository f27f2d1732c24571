import { ServiceError } from '../../common/errors.js';
import type { StudioContext } from '../context.js';
import type { JobPhase } from '../lanes/types.js';

// The in-flight registry: every running generation, by requestId, with the
// AbortController that cancels its upstream call. In memory only: a job that
// dies with the process has nothing to resume (its upstream call died too),
// and nothing is saved until a job has its image.

export type JobKind = 'generate' | 'edit' | 'multimode';

/** What GET /api/inflight lists for one job. */
export interface JobInfo {
  readonly requestId: string;
  readonly kind: JobKind;
  /** The lane it runs on (`auto` already resolved); `multimode` when slots use several. */
  readonly provider: string;
  readonly model?: string;
  readonly phase: JobPhase;
  readonly startedAt: string;
  /** Multimode: how many outputs. */
  readonly slots?: number;
  /** True once a cancel was asked for. */
  readonly cancelling: boolean;
}

/** How long DELETE waits for a cancelled job to wind down before dropping it anyway. */
const CANCEL_GRACE_MS = 2000;

export class RunningJob {
  private readonly controller = new AbortController();
  private currentPhase: JobPhase = 'queued';
  private finish!: () => void;
  /** Settles when the job has published its terminal event. */
  readonly settled = new Promise<void>((resolve) => (this.finish = resolve));
  readonly startedAt = new Date().toISOString();

  constructor(
    readonly requestId: string,
    readonly kind: JobKind,
    readonly provider: string,
    readonly model: string | undefined,
    readonly slots: number | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get phase(): JobPhase {
    return this.currentPhase;
  }

  setPhase(phase: JobPhase): void {
    this.currentPhase = phase;
  }

  /** Aborts the upstream call(s); the job then ends with `reason` as its error. */
  cancel(message: string): void {
    if (this.signal.aborted) return;
    this.controller.abort(new ServiceError('JOB_CANCELLED', message, { details: { requestId: this.requestId } }));
  }

  markSettled(): void {
    this.finish();
  }

  info(): JobInfo {
    return {
      requestId: this.requestId,
      kind: this.kind,
      provider: this.provider,
      ...(this.model ? { model: this.model } : {}),
      phase: this.currentPhase,
      startedAt: this.startedAt,
      ...(this.slots !== undefined ? { slots: this.slots } : {}),
      cancelling: this.signal.aborted,
    };
  }
}

export class JobRegistry {
  private readonly jobs = new Map<string, RunningJob>();

  /** Claims a requestId for a new job; REQUEST_ID_IN_USE while another job with it runs. */
  reserve(requestId: string, kind: JobKind, provider: string, model?: string, slots?: number): RunningJob {
    if (this.jobs.has(requestId)) {
      throw new ServiceError('REQUEST_ID_IN_USE', `A job with requestId "${requestId}" is already running.`, { details: { requestId } });
    }
    const job = new RunningJob(requestId, kind, provider, model, slots);
    this.jobs.set(requestId, job);
    return job;
  }

  release(job: RunningJob): void {
    if (this.jobs.get(job.requestId) === job) this.jobs.delete(job.requestId);
    job.markSettled();
  }

  get(requestId: string): RunningJob | undefined {
    return this.jobs.get(requestId);
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((job) => job.info());
  }

  /**
   * Cancels a job and waits (briefly) for it to end; a job that does not end in
   * time is dropped from the registry anyway (the spec's "force-remove").
   */
  async cancel(requestId: string): Promise<JobInfo> {
    const job = this.jobs.get(requestId);
    if (!job) throw new ServiceError('JOB_NOT_FOUND', `No in-flight job with requestId "${requestId}".`, { details: { requestId } });
    job.cancel('The job was cancelled (DELETE /api/inflight).');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([job.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, CANCEL_GRACE_MS)))]);
    clearTimeout(timer);
    if (this.jobs.get(requestId) === job) this.jobs.delete(requestId);
    return job.info();
  }

  /**
   * Shutdown: cancel everything still running and wait (at most `graceMs`)
   * until each job has published its terminal event. A job already saving
   * finishes its save, so nothing paid for is thrown away.
   */
  async cancelAll(message: string, graceMs: number): Promise<void> {
    const running = [...this.jobs.values()];
    for (const job of running) job.cancel(message);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(running.map((job) => job.settled)), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
}

const registries = new WeakMap<StudioContext, JobRegistry>();

/** The registry of a studio (one per context, created on first use). */
export function jobRegistry(ctx: StudioContext): JobRegistry {
  let registry = registries.get(ctx);
  if (!registry) {
    registry = new JobRegistry();
    registries.set(ctx, registry);
  }
  return registry;
}
