import { ServiceError } from '../errors.js';
import type { FinishedJob, InflightJob, JobRecord, RetryAnswer } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { Dispatcher } from './claim.js';
import { EngineCore, now } from './engine.js';
import type { GenerationEvents } from './events.js';
import type { JobHandlers } from './handlers.js';
import type { JobInputs } from './inputs.js';
import type { Holder, JobStore } from './job-store.js';
import { finishedOf, inflightOf, recordOf } from './records.js';
import { Recovery, type Recovered } from './recover.js';
import { Runner } from './run.js';
import type { JobSpec } from './running-job.js';
import { Submission, type Submitted } from './submit.js';

// The job engine as the studio sees it (docs/ARCHITECTURE.md, "The job
// engine"). Every generation is a job: a row of the jobs table from the
// moment it is accepted, queued until a claim gives it a slot within the
// limits (overall, per pool, one at a time per ordering key), run by the
// handler of its kind under a lease this process renews, ending in exactly
// one `done` or `error` event and one terminal state. A job between two status
// calls of its upstream parks: its row waits with the time of the next call
// and no lease, and any engine's claim runs it again when it is due. The
// pieces, one job each: submit.ts (accepting), claim.ts (claiming), run.ts
// (running), wait.ts (waiting or parking), recover.ts (orphans and the
// heartbeat); engine.ts holds what they share. This file reads jobs, cancels
// them, and stops the engine.

export type { Submitted } from './submit.js';

/** How long DELETE /api/inflight waits for a cancelled job to wind down before ending it anyway. */
const CANCEL_GRACE_MS = 2000;
/** An input file no job holds is kept this long: it may be one a submit wrote and is about to record. */
const INPUT_GRACE_MS = 60 * 60 * 1000;

export class Jobs {
  private readonly core: EngineCore;
  private readonly dispatcher: Dispatcher;
  private readonly runner: Runner;
  private readonly submission: Submission;
  private readonly recovery: Recovery;

  constructor(ctx: StudioContext, store: JobStore, handlers: Partial<JobHandlers>) {
    const core = new EngineCore(ctx, store, handlers);
    this.core = core;
    this.dispatcher = new Dispatcher(core, (row, stored) => this.runner.start(row, stored));
    this.runner = new Runner(core, this.dispatcher);
    this.submission = new Submission(core, this.dispatcher);
    this.recovery = new Recovery(core, this.dispatcher, (row) => this.runner.start(row));
  }

  /** Who holds the leases of the jobs this engine runs: host, pid and a nonce. */
  get owner(): string {
    return this.core.owner;
  }

  /** The studios holding leases on this queue now (team mode: several), with how many jobs each holds. */
  holders(): Promise<Holder[]> {
    return this.core.store.holders(Date.now());
  }

  get events(): GenerationEvents {
    return this.core.events;
  }

  /** The content-addressed input images of jobs. */
  get inputs(): JobInputs {
    return this.core.inputs;
  }

  /**
   * Accepts a job: its input images stored, its row queued, `phase: queued`
   * published with its position, then a claim pass (it starts at once when a
   * slot is free). The same requestId with the same body answers the job that
   * has it (never a second run); with another body, REQUEST_ID_IN_USE.
   */
  submit(spec: JobSpec): Promise<Submitted> {
    return this.submission.submit(spec);
  }

  /** REQUEST_ID_IN_USE when another request has this requestId (the same request may follow its job). */
  checkRequestId(requestId: string, fingerprint: string | null): Promise<void> {
    return this.submission.checkRequestId(requestId, fingerprint);
  }

  /** A new attempt of a failed, cancelled or interrupted job (submit.ts). */
  retry(requestId: string, newRequestId?: string): Promise<RetryAnswer> {
    return this.submission.retry(requestId, newRequestId);
  }

  /** Start-up, then the heartbeat: jobs whose owner is gone are continued by the billing rule (recover.ts). */
  recover(): Promise<Recovered> {
    return this.recovery.begin();
  }

  /** A job at any point of its life, and until the retention sweep after it ended. */
  async get(requestId: string): Promise<JobRecord | undefined> {
    const row = await this.core.store.find(requestId);
    if (!row) return undefined;
    const live = this.core.running.get(requestId);
    return recordOf(row, {
      position: row.state === 'queued' ? await this.core.store.position(row) : null,
      ...(live ? { phase: live.phase } : {}),
      attempts: await this.core.store.attempts(row.retry_of ?? row.id),
    });
  }

  /** The jobs not finished (GET /api/inflight): running and waiting ones first, then the queue in order. */
  async inflight(): Promise<InflightJob[]> {
    const rows = await this.core.store.unfinished();
    const queued = rows.filter((row) => row.state === 'queued').sort((a, b) => b.priority - a.priority || a.seq - b.seq);
    const active = rows.filter((row) => row.state !== 'queued');
    return [
      ...active.map((row) => {
        const live = this.core.running.get(row.id);
        return inflightOf(row, { ...(live ? { phase: live.phase } : {}), cancelling: live?.signal.aborted ?? false });
      }),
      ...queued.map((row, index) => inflightOf(row, { position: index + 1, cancelling: false })),
    ];
  }

  /** The jobs that ended since `since` (GET /api/jobs), the newest end first. */
  async finishedSince(since: string, limit: number): Promise<FinishedJob[]> {
    return (await this.core.store.finishedSince(since, limit)).map(finishedOf);
  }

  /**
   * Cancels a job. A queued one ends at once and never runs; a parked one is
   * taken here and starts cancelled; a running or waiting one here is aborted (its upstream call, its wait, and the vendor's
   * cancel where the lane has one) and awaited briefly, then ended anyway (the
   * spec's "force-remove"); one running in another process is asked to stop.
   */
  async cancel(requestId: string, message = 'The job was cancelled (DELETE /api/inflight).'): Promise<InflightJob> {
    const row = await this.core.store.find(requestId);
    if (!row || row.finished_at)
      throw new ServiceError('JOB_NOT_FOUND', `No in-flight job with requestId "${requestId}".`, { details: { requestId } });
    const cancelled = inflightOf(row, { cancelling: true });
    if (row.state === 'queued') {
      if (
        await this.core.end(
          row,
          'cancelled',
          new ServiceError('JOB_CANCELLED', `${message} It had not started.`, { details: { requestId } }),
          'queued',
        )
      ) {
        this.core.held.delete(requestId);
        return cancelled;
      }
      // Claimed meanwhile: asked below, here or through the row.
    }
    let job = this.core.running.get(requestId);
    if (!job) {
      // Asked through the row: whoever runs it next starts it cancelled.
      await this.core.store.requestCancel(requestId, now());
      // Parked: taken now whatever the limits, so it starts cancelled and its cancel reaches the vendor at once.
      if (row.state === 'waiting' && row.lease_owner === null) {
        const taken = await this.core.store.take(requestId, this.core.owner, Date.now() + this.core.leaseMs, now());
        if (taken) job = this.runner.start(taken);
      }
    }
    if (!job) {
      // Claimed here a moment ago (its start follows its claim's answer): cancelled as it starts; elsewhere, at that process's heartbeat.
      setImmediate(() => this.core.running.get(requestId)?.cancel(message));
      return cancelled;
    }
    job.cancel(message);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([job.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, CANCEL_GRACE_MS)))]);
    clearTimeout(timer);
    if (this.core.running.get(requestId) === job) {
      // It did not wind down in time: it ends now; whatever it does later finds the row ended.
      this.core.running.delete(requestId);
      await this.core.end(
        row,
        'cancelled',
        job.signal.reason instanceof ServiceError ? job.signal.reason : new ServiceError('JOB_CANCELLED', message),
      );
      this.dispatcher.pump();
    }
    return { ...cancelled, phase: job.phase };
  }

  /**
   * Shutdown: claims stop; what can resume is detached (it stays unfinished
   * with its lease released, and the next start continues it), what cannot is
   * cancelled; queued jobs stay queued. Waits at most `graceMs` for the
   * running ones to settle. A job already saving finishes its save.
   */
  async stopAll(message: string, graceMs: number): Promise<void> {
    const { core } = this;
    core.stopping = true;
    this.recovery.stop();
    this.dispatcher.stop();
    const jobs = [...core.running.values()];
    for (const job of jobs) {
      const handler = core.handlerOf(job.kind);
      job.detached = job.operation !== null && handler.canResume({ kind: job.kind, request: job.request, operation: job.operation });
      job.cancel(message);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(jobs.map((job) => job.settled)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    if (core.store.open) await core.store.releaseLeases(core.owner);
  }

  /** Removes jobs that ended longer ago than the retention, then the input files no job holds; returns how many jobs. */
  async sweep(retentionMs: number, at = Date.now()): Promise<number> {
    const { store } = this.core;
    const removed = await store.sweepFinished(new Date(at - retentionMs).toISOString());
    await this.core.inputs.sweep(async (hash) => !store.open || (await store.inputHeld(hash)), INPUT_GRACE_MS, at);
    return removed;
  }
}
