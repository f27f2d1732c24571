import type { ServiceError } from '../errors.js';
import type { JobKind, JobRequest, JobState } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { JobRow, JobStore } from './job-store.js';
import { GenerationEvents } from './events.js';
import type { HeldInputs, JobHandler, JobHandlers, StoredJob } from './handlers.js';
import { JobInputs } from './inputs.js';
import { jobLimits, type JobLimits } from './limits.js';
import { Outcomes } from './outcomes.js';
import { kindOf, operationOf, storedJobOf } from './records.js';
import type { RunningJob } from './running-job.js';

// What the engine's pieces share (submit.ts, claim.ts, run.ts, wait.ts,
// recover.ts; jobs.ts is the engine as the studio sees it): the store, the
// handlers, this engine's name on its leases, its limits, and what this
// process holds of the jobs it runs, holds or waits for.

/** A lease: how long a job stays ours without a heartbeat (SVC_JOB_LEASE_MS). */
const DEFAULT_LEASE_MS = 30_000;

export const now = (): string => new Date().toISOString();

export class EngineCore {
  /** Who holds the leases of the jobs this engine runs: its studio's instance (host, pid and a nonce). */
  readonly owner: string;
  readonly events: GenerationEvents;
  readonly inputs: JobInputs;
  readonly limits: JobLimits;
  readonly leaseMs: number;
  /** The jobs running here now. */
  readonly running = new Map<string, RunningJob>();
  /** Jobs submitted (or parked) here that are not running: their request as an object and their decoded inputs. */
  readonly held = new Map<string, { readonly request: JobRequest; readonly inputs: HeldInputs[JobKind] | undefined }>();
  /** What each job keeps in memory across its parks (JobContext.keep), until it ends. */
  readonly kept = new Map<string, Map<string, object>>();
  readonly outcomes = new Outcomes();
  /** Shutdown began: no claims, no parks. */
  stopping = false;

  constructor(
    readonly ctx: StudioContext,
    /** Where the queue lives: the JobStore port (SQLite today: store/jobs.ts). */
    readonly store: JobStore,
    /** The handler of every kind this engine runs (the studio's: jobs/kinds.ts); rows of other kinds are left to other engines. */
    readonly handlers: Partial<JobHandlers>,
  ) {
    this.owner = ctx.instance;
    // In team mode the events name the studio that publishes them (an embedded studio's stay as they were).
    this.events = new GenerationEvents(ctx.events, ctx.outbox, ctx.storage.database === 'postgresql' ? ctx.instance : undefined);
    this.inputs = new JobInputs(ctx.assets);
    this.limits = jobLimits(ctx);
    const lease = Number(ctx.env.SVC_JOB_LEASE_MS);
    this.leaseMs = Number.isInteger(lease) && lease >= 300 ? lease : DEFAULT_LEASE_MS;
  }

  handlerOf<K extends JobKind>(kind: K): JobHandler<K> {
    const handler: JobHandler<K> | undefined = this.handlers[kind];
    if (!handler) throw new Error(`No job handler for kind ${kind}.`);
    return handler;
  }

  /** A stored job: its request as submitted here (held), else parsed from its row by its kind's schema. */
  stored(row: JobRow): StoredJob {
    const held = this.held.get(row.id);
    return held ? { kind: kindOf(row), request: held.request, operation: operationOf(row) } : storedJobOf(row);
  }

  /** Whether a stored job continues from its recorded operation (a row this engine cannot read does not). */
  canResume(row: JobRow): boolean {
    if (!Object.hasOwn(this.handlers, row.kind)) return false;
    try {
      const stored = this.stored(row);
      return this.handlerOf(stored.kind).canResume(stored);
    } catch (error) {
      console.error(`job ${row.id} cannot be resumed:`, error);
      return false;
    }
  }

  /** Ends a job that is not running here, with its `error` event; false when it had ended or left `from`. */
  async end(row: JobRow, state: JobState, error: ServiceError, from?: JobState): Promise<boolean> {
    const payload = error.toBody().error;
    const event = this.events.error({ requestId: row.id, kind: kindOf(row), error: payload });
    if (!(await this.store.finish(row.id, { state, error: payload, event, ...(from ? { from } : {}) }, now()))) return false;
    this.outcomes.settle(row.id, { ok: false, error });
    return true;
  }
}
