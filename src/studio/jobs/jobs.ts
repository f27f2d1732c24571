import { ServiceError } from '../../common/errors.js';
import { toServiceError } from '../../common/http-errors.js';
import type { ErrorPayload, InflightJob, JobKind, JobRecord, JobResult, JobState } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { findJob, finishJob, finishJobs, insertJob, markJobRunning, setJobPhase, setJobUpstream, sweepFinishedJobs, unfinishedJobs, type JobRow } from '../store/jobs.js';
import { UpstreamError } from '../upstream/index.js';
import { GenerationEvents } from './events.js';
import type { JobContext, JobHandler } from './handlers.js';
import { RunningJob, type JobSpec } from './running-job.js';

// Durable jobs. Every generation is a job: a row in the jobs table from the
// moment it is accepted (so a crash cannot make it vanish), run by the handler
// of its kind, ending in exactly one `done` or `error` event and one terminal
// state. The running ones are also held here, with their cancel.

/** How long DELETE /api/inflight waits for a cancelled job to wind down before dropping it anyway. */
const CANCEL_GRACE_MS = 2000;

/** Why a job ended badly, in our terms: the cancel reason wins over whatever the abort caused. */
export function jobFailure(signal: AbortSignal, error: unknown, requestId: string): ServiceError {
  if (signal.aborted && signal.reason instanceof ServiceError) return signal.reason;
  if (error instanceof UpstreamError) return error.toServiceError();
  const mapped = toServiceError(error);
  if (mapped.code === 'INTERNAL_ERROR') console.error(`job ${requestId} failed:`, error);
  return mapped;
}

const now = () => new Date().toISOString();

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function recordOf(row: JobRow): JobRecord {
  return {
    requestId: row.id,
    kind: row.kind as JobKind,
    state: row.state,
    phase: row.phase as JobRecord['phase'],
    provider: row.lane,
    model: row.model,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    upstream: row.upstream_operation_id ? { operationId: row.upstream_operation_id, state: row.upstream_state } : null,
    request: parse(row.request) as Record<string, unknown>,
    result: parse(row.result) as JobResult | null,
    error: parse(row.error) as ErrorPayload | null,
  };
}

export class Jobs {
  private readonly running = new Map<string, RunningJob>();
  private readonly handlers = new Map<JobKind, JobHandler>();
  readonly events: GenerationEvents;

  constructor(
    private readonly ctx: StudioContext,
    handlers: readonly JobHandler[],
  ) {
    this.events = new GenerationEvents(ctx.events);
    for (const handler of handlers) for (const kind of handler.kinds) this.handlers.set(kind, handler);
  }

  /**
   * Claims a requestId and records the job as queued. REQUEST_ID_IN_USE while
   * an unfinished job has the id; a finished job's id can be used again (its
   * record is replaced).
   */
  create(spec: JobSpec): RunningJob {
    const { requestId } = spec;
    if (this.running.has(requestId)) throw new ServiceError('REQUEST_ID_IN_USE', `A job with requestId "${requestId}" is already running.`, { details: { requestId } });
    if (!this.handlers.has(spec.kind)) throw new Error(`No job handler for kind ${spec.kind}.`);
    try {
      insertJob(this.ctx.db, { id: requestId, kind: spec.kind, lane: spec.lane, model: spec.model, request: JSON.stringify(spec.request), created_at: spec.createdAt ?? now() });
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new ServiceError('REQUEST_ID_IN_USE', `A job with requestId "${requestId}" has not finished.`, { details: { requestId } });
      }
      throw error;
    }
    const job = new RunningJob(spec);
    this.running.set(requestId, job);
    return job;
  }

  /**
   * Runs a created job to its end: `phase: queued`, the handler, then exactly
   * one `done` (with the result) or `error`. The stored state is written
   * before each event goes out, so a client that reads the job after an event
   * finds at least that state.
   */
  async run(job: RunningJob): Promise<JobResult> {
    const { ctx, events } = this;
    const { requestId, kind } = job;
    const handler = this.handlers.get(kind) as JobHandler;
    const base = { requestId, kind };
    try {
      markJobRunning(ctx.db, requestId, 'queued', now());
      events.phase({ ...base, phase: 'queued', ...(job.spec.lane ? { provider: job.spec.lane } : { provider: kind }), ...(job.spec.model ? { model: job.spec.model } : {}) });
      // Once a handler returns, its result stands: a cancel that came during saving does not undo saved work.
      const result = await handler.run(ctx, this.context(job));
      finishJob(ctx.db, requestId, { state: 'succeeded', result, phase: job.phase }, now());
      events.done({ ...base, result });
      return result;
    } catch (error) {
      const failure = jobFailure(job.signal, error, requestId);
      if (job.detached) throw failure;
      const state: JobState = failure.code === 'JOB_CANCELLED' ? 'cancelled' : 'failed';
      const payload = failure.toBody().error;
      finishJob(ctx.db, requestId, { state, error: payload, phase: job.phase }, now());
      events.error({ ...base, error: payload });
      throw failure;
    } finally {
      if (this.running.get(requestId) === job) this.running.delete(requestId);
      job.markSettled();
    }
  }

  private context(job: RunningJob): JobContext {
    const { ctx, events } = this;
    const { spec } = job;
    let phaseWrite: NodeJS.Immediate | undefined;
    const writePhase = () => {
      phaseWrite = undefined;
      // A job that outlived the shutdown grace finds the database closed: nothing to record then.
      if (ctx.db.open) setJobPhase(ctx.db, spec.requestId, job.phase, now());
    };
    // An ending job's last phase goes with finishJob; one detached at shutdown stays unfinished, so its phase is written now.
    void job.settled.then(() => {
      if (!phaseWrite) return;
      clearImmediate(phaseWrite);
      phaseWrite = undefined;
      if (job.detached) writePhase();
    });
    return {
      requestId: spec.requestId,
      kind: spec.kind,
      lane: spec.lane,
      model: spec.model,
      request: spec.request,
      inputs: spec.inputs,
      upstream: job.upstream,
      signal: job.signal,
      events,
      phase(phase, fields = {}) {
        job.setPhase(phase);
        // The row follows within one turn of the loop, off the request's path (the upstream
        // call or the image write is under way by then); several phases in one turn write once.
        phaseWrite ??= setImmediate(writePhase);
        events.phase({ requestId: spec.requestId, kind: spec.kind, phase, ...fields });
      },
      partial({ index, b64, format, slot }) {
        events.partial({ requestId: spec.requestId, kind: spec.kind, index, format, b64, ...(slot !== undefined ? { slot } : {}) });
      },
      setUpstream(operationId, state) {
        job.upstream = { operationId, state };
        setJobUpstream(ctx.db, spec.requestId, operationId, state, now());
      },
    };
  }

  /** A job at any point of its life, and until the retention sweep after it ended. */
  get(requestId: string): JobRecord | undefined {
    const row = findJob(this.ctx.db, requestId);
    if (!row) return undefined;
    const record = recordOf(row);
    const live = this.running.get(requestId);
    return live ? { ...record, phase: live.phase } : record;
  }

  /** The jobs running now (GET /api/inflight). */
  inflight(): InflightJob[] {
    return [...this.running.values()].map((job) => job.info());
  }

  /**
   * Cancels a job and waits (briefly) for it to end; a job that does not end in
   * time is dropped from the in-flight list anyway (the spec's "force-remove").
   */
  async cancel(requestId: string): Promise<InflightJob> {
    const job = this.running.get(requestId);
    if (!job) throw new ServiceError('JOB_NOT_FOUND', `No in-flight job with requestId "${requestId}".`, { details: { requestId } });
    job.cancel('The job was cancelled (DELETE /api/inflight).');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([job.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, CANCEL_GRACE_MS)))]);
    clearTimeout(timer);
    if (this.running.get(requestId) === job) this.running.delete(requestId);
    return job.info();
  }

  /**
   * Shutdown: cancel what cannot resume, detach what can (it stays unfinished
   * in the store and resumes at the next start), and wait at most `graceMs`
   * for every job to settle. A job already saving finishes its save.
   */
  async stopAll(message: string, graceMs: number): Promise<void> {
    const jobs = [...this.running.values()];
    for (const job of jobs) {
      job.detached = Boolean(job.upstream && this.handlers.get(job.kind)?.canResume({ kind: job.kind, request: job.spec.request, upstream: job.upstream }));
      job.cancel(message);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(jobs.map((job) => job.settled)), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  /**
   * Start-up: every job the store holds unfinished was running when the studio
   * stopped. A kind that can resume, with its upstream operation recorded,
   * runs again from it; every other one ends `interrupted` (JOB_INTERRUPTED),
   * published on the channel so no client waits for it forever.
   */
  recover(): { resumed: number; interrupted: number } {
    const rows = unfinishedJobs(this.ctx.db);
    const interrupted: JobRow[] = [];
    let resumed = 0;
    for (const row of rows) {
      const handler = this.handlers.get(row.kind as JobKind);
      const upstream = row.upstream_operation_id ? { operationId: row.upstream_operation_id, state: row.upstream_state } : null;
      const request = JSON.parse(row.request) as Record<string, unknown>;
      if (upstream && handler?.canResume({ kind: row.kind as JobKind, request, upstream })) {
        const job = new RunningJob({
          requestId: row.id,
          kind: row.kind as JobKind,
          lane: row.lane,
          model: row.model,
          request,
          upstream,
          createdAt: row.created_at,
        });
        this.running.set(row.id, job);
        this.run(job).catch(() => {});
        resumed += 1;
      } else {
        interrupted.push(row);
      }
    }
    const error = (row: JobRow): ErrorPayload =>
      new ServiceError('JOB_INTERRUPTED', 'The studio stopped while this job ran; nothing of it was saved. Run it again.', {
        details: { requestId: row.id, phase: row.phase },
      }).toBody().error;
    finishJobs(this.ctx.db, interrupted.map((row) => ({ id: row.id, state: 'interrupted', error: error(row) })), now());
    for (const row of interrupted) this.events.error({ requestId: row.id, kind: row.kind as JobKind, error: error(row) });
    return { resumed, interrupted: interrupted.length };
  }

  /** Removes jobs that ended longer ago than the retention; returns how many. */
  sweep(retentionMs: number, at = Date.now()): number {
    return sweepFinishedJobs(this.ctx.db, new Date(at - retentionMs).toISOString());
  }
}
