import type { JobState } from '../api/index.js';
import { now, type EngineCore } from './engine.js';
import type { StoredJob } from './handlers.js';
import type { JobRow } from './job-store.js';
import { jobContext } from './job-context.js';
import { studioStorage } from './limits.js';
import { isParked } from './parked.js';
import { jobFailure, phaseOf } from './records.js';
import { RunningJob } from './running-job.js';

// Running a claimed job here: its handler under this engine's lease, then
// exactly one `done` (with the result) or `error`, written by the store with
// the job's end (the outbox: neither lands without the other, and a client
// that reads the job after the event finds at least that state). A run that
// parks ends with neither: the job goes on when a claim takes it again.

/** What a run asks of the claiming side: a pass when a slot frees, a wake when a parked job is due. */
export interface Dispatch {
  pump(): void;
  wakeAt(at: number): void;
}

export class Runner {
  constructor(
    private readonly core: EngineCore,
    private readonly dispatch: Dispatch,
  ) {}

  /** Starts a claimed (or adopted, or taken) row here; a cancel asked for it through the row ends it as it starts. */
  start(row: JobRow, stored: StoredJob = this.core.stored(row)): RunningJob {
    const { core } = this;
    const held = core.held.get(row.id);
    core.held.delete(row.id);
    // A job adopted from a process that died while it waited in place keeps its time.
    const resumeAt = row.state === 'waiting' ? row.next_check_at : null;
    const job = new RunningJob(
      row.id,
      stored.kind,
      row.lane,
      row.model,
      stored.request,
      held?.inputs,
      stored.operation,
      row.deadline_at ?? Infinity,
      phaseOf(row),
      row.polls,
    );
    core.running.set(row.id, job);
    if (row.cancel_requested) job.cancel('The job was cancelled (DELETE /api/inflight).');
    void this.run(job, resumeAt);
    return job;
  }

  private async run(job: RunningJob, resumeAt: number | null): Promise<void> {
    const { core } = this;
    const { events, store } = core;
    const { requestId, kind } = job;
    const base = { requestId, kind };
    try {
      const context = jobContext(core, job);
      if (resumeAt !== null && resumeAt > Date.now()) await context.waitUntil(resumeAt);
      // Once a handler returns, its result stands: a cancel that came during saving does not undo saved work.
      const result = await core.handlerOf(kind).run(core.ctx, context);
      // Controls a lane dropped are on the event too (issue 29), not only inside the result.
      const warnings =
        'warnings' in result && Array.isArray(result.warnings) && result.warnings.length ? { warnings: result.warnings } : {};
      const event = events.done({ ...base, result, ...warnings });
      if (await store.finish(requestId, { state: 'succeeded', result, phase: job.phase, event }, now()))
        core.outcomes.settle(requestId, { ok: true, result });
    } catch (error) {
      if (isParked(error)) {
        // Its row waits, with no lease: the inputs decoded here and what it keeps stay for its next run, and a pass claims it when due.
        job.parked = true;
        if (job.inputs !== undefined) core.held.set(requestId, { request: job.request, inputs: job.inputs });
        this.dispatch.wakeAt(error.until);
        return;
      }
      const failure = jobFailure(job.signal, error, requestId, studioStorage(core.ctx));
      if (!job.detached && store.open) {
        const state: JobState = failure.code === 'JOB_CANCELLED' ? 'cancelled' : 'failed';
        const payload = failure.toBody().error;
        const event = events.error({ ...base, error: payload });
        if (await store.finish(requestId, { state, error: payload, phase: job.phase, event }, now()))
          core.outcomes.settle(requestId, { ok: false, error: failure });
      }
    } finally {
      if (!job.parked) core.kept.delete(requestId);
      if (core.running.get(requestId) === job) core.running.delete(requestId);
      job.markSettled();
      this.dispatch.pump();
    }
  }
}
