import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from '../errors.js';
import { storageFullError } from '../../common/storage-full.js';
import {
  RETRYABLE_JOB_STATES,
  REQUEST_ID_PATTERN,
  type FinishedJob,
  type InflightJob,
  type JobKind,
  type JobRecord,
  type JobRequest,
  type JobResult,
  type JobState,
  type RetryAnswer,
} from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { ClaimRequest, JobRow, JobStore, NewJobRow } from './job-store.js';
import { GenerationEvents } from './events.js';
import type { HeldInputs, JobContext, JobHandler, JobHandlers, StoredJob } from './handlers.js';
import { JobInputs } from './inputs.js';
import { jobLimits, studioStorage, type JobLimits } from './limits.js';
import {
  finishedOf,
  inflightOf,
  jobFailure,
  kindOf,
  operationOf,
  phaseOf,
  recordOf,
  resultOf,
  storedFailure,
  storedJobOf,
} from './records.js';
import { RunningJob, type JobSpec } from './running-job.js';
import { isParked, JobParked } from './parked.js';

// The job engine (docs/ARCHITECTURE.md, "The job engine"). Every generation
// is a job: a row of the jobs table from the moment it is accepted, queued
// until a claim gives it a slot within the limits (overall, per lane, one at a
// time per ordering key), run by the handler of its kind under a lease this
// process renews, ending in exactly one `done` or `error` event and one
// terminal state. A job between two status calls of its upstream parks: its
// row waits with the time of the next call and no lease, holding no slot and
// no promise, and any engine's claim runs it again when it is due. A process that dies leaves leases that expire (or a pid that
// is gone): whoever looks next continues each of its jobs by the billing rule:
// never reached the upstream → queued again; an operation recorded → resumed;
// otherwise → interrupted, never sent again by itself.

/** How long DELETE /api/inflight waits for a cancelled job to wind down before ending it anyway. */
const CANCEL_GRACE_MS = 2000;
/** An input file no job holds is kept this long: it may be one a submit wrote and is about to record. */
const INPUT_GRACE_MS = 60 * 60 * 1000;
/** A lease: how long a job stays ours without a heartbeat (SVC_JOB_LEASE_MS). */
const DEFAULT_LEASE_MS = 30_000;

const now = () => new Date().toISOString();

type Outcome = { readonly ok: true; readonly result: JobResult } | { readonly ok: false; readonly error: ServiceError };

const outcomeOf = (row: JobRow): Outcome => {
  const result = row.state === 'succeeded' ? resultOf(row) : null;
  return result ? { ok: true, result } : { ok: false, error: storedFailure(row) };
};

/** Whether a process that held a lease is gone: same host, and its pid no longer runs. */
function ownerIsDead(owner: string): boolean {
  const [host, pid] = owner.split('/');
  if (host !== hostname() || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Whether a stored job is the one a client's request (its fingerprint) asks for again. */
const sameRequest = (existing: JobRow, fingerprint: string | null): boolean => fingerprint !== null && existing.fingerprint === fingerprint;

export interface Submitted {
  readonly requestId: string;
  /** The same requestId and body came before: this is that job, not a new one. */
  readonly existing: boolean;
  /** Settles with the job's result, or rejects with its error. */
  readonly outcome: Promise<JobResult>;
}

export class Jobs {
  /** Who holds the leases of the jobs this engine runs: host, pid and a nonce. */
  readonly owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  readonly events: GenerationEvents;
  readonly inputs: JobInputs;
  private readonly handlers: Partial<JobHandlers>;
  private readonly limits: JobLimits;
  private readonly leaseMs: number;
  private readonly running = new Map<string, RunningJob>();
  /** Jobs submitted here that have not started yet: their request as an object and their decoded inputs. */
  private readonly held = new Map<string, { readonly request: JobRequest; readonly inputs: HeldInputs[JobKind] | undefined }>();
  private readonly waiters = new Map<string, Array<(outcome: Outcome) => void>>();
  /** What each job keeps in memory across its parks (JobContext.keep), until it ends. */
  private readonly kept = new Map<string, Map<string, object>>();
  private timer: NodeJS.Timeout | undefined;
  /** The claim pass at the earliest time a parked job is due (this engine's parks, and what the store says after a pass). */
  private wake: { readonly at: number; readonly timer: NodeJS.Timeout } | undefined;
  private lastRenewal = 0;
  private ticking = false;
  private stopping = false;

  constructor(
    private readonly ctx: StudioContext,
    /** Where the queue lives: the JobStore port (SQLite today: store/jobs.ts). */
    private readonly store: JobStore,
    /** The handler of every kind this engine runs (the studio's: jobs/kinds.ts); rows of other kinds are left to other engines. */
    handlers: Partial<JobHandlers>,
  ) {
    this.handlers = handlers;
    this.events = new GenerationEvents(ctx.events);
    this.inputs = new JobInputs(ctx.assets);
    this.limits = jobLimits(ctx);
    const lease = Number(ctx.env.SVC_JOB_LEASE_MS);
    this.leaseMs = Number.isInteger(lease) && lease >= 300 ? lease : DEFAULT_LEASE_MS;
  }

  private handlerOf<K extends JobKind>(kind: K): JobHandler<K> {
    const handler: JobHandler<K> | undefined = this.handlers[kind];
    if (!handler) throw new Error(`No job handler for kind ${kind}.`);
    return handler;
  }

  /** Whether a stored job continues from its recorded operation (a row this engine cannot read does not). */
  private canResume(row: JobRow): boolean {
    if (!Object.hasOwn(this.handlers, row.kind)) return false;
    try {
      const stored = this.stored(row);
      return this.handlerOf(stored.kind).canResume(stored);
    } catch (error) {
      console.error(`job ${row.id} cannot be resumed:`, error);
      return false;
    }
  }

  /** A stored job: its request as submitted here (held), else parsed from its row by its kind's schema. */
  private stored(row: JobRow): StoredJob {
    const held = this.held.get(row.id);
    return held ? { kind: kindOf(row), request: held.request, operation: operationOf(row) } : storedJobOf(row);
  }

  /**
   * Accepts a job: its input images stored, its row queued, `phase: queued`
   * published with its position, then a claim pass (it starts at once when a
   * slot is free). The same requestId with the same body answers the job that
   * has it (never a second run); with another body, REQUEST_ID_IN_USE.
   */
  async submit(spec: JobSpec): Promise<Submitted> {
    const { requestId, kind } = spec;
    this.handlerOf(kind);
    // Before anything is stored or billed: a job that could not save its result is refused, by name.
    const spot = studioStorage(this.ctx);
    const room = await this.ctx.assets.capacity();
    if (room && room.freeBytes < spot.reserveBytes) throw storageFullError(spot, room.freeBytes);
    const images = spec.inputImages ?? [];
    if (images.length) await this.inputs.store(images);
    const row: NewJobRow = {
      id: requestId,
      kind,
      lane: spec.lane,
      model: spec.model,
      request: JSON.stringify(spec.request),
      created_at: now(),
      priority: spec.priority ?? 0,
      ordering_key: spec.orderingKey ?? null,
      fingerprint: spec.fingerprint ?? null,
      attempt: spec.attempt ?? 1,
      retry_of: spec.retryOf ?? null,
      ...this.policyOf({ kind, request: spec.request, operation: null }, spec.lane),
    };
    // Held before the insert: a claim in the same transaction reads the request from here, not from JSON.
    const alreadyHeld = this.held.has(requestId);
    if (!alreadyHeld) this.held.set(requestId, { request: spec.request, inputs: spec.inputs });
    const inserted = await this.store.insert(
      row,
      [...new Set(images.map((image) => image.sha256))],
      this.stopping ? undefined : this.claimRequest(),
    );
    if ('existing' in inserted) {
      if (!alreadyHeld) this.held.delete(requestId);
      const { existing } = inserted;
      if (sameRequest(existing, spec.fingerprint ?? null)) return { requestId, existing: true, outcome: this.outcome(existing) };
      throw this.requestIdInUse(existing);
    }
    // Watched before it can start, so even a job that ends at once reaches its waiter with its own error.
    const outcome = this.answer(this.watch(requestId));
    // Published before anything claimed starts: `phase: queued` is always a job's first event.
    this.announce({ requestId, kind, lane: spec.lane, model: spec.model, position: inserted.position });
    this.startClaimed(inserted.claimed);
    return { requestId, existing: false, outcome };
  }

  /** REQUEST_ID_IN_USE when another request has this requestId (the same request may follow its job). */
  async checkRequestId(requestId: string, fingerprint: string | null): Promise<void> {
    const existing = await this.store.find(requestId);
    if (existing && !sameRequest(existing, fingerprint)) throw this.requestIdInUse(existing);
  }

  private requestIdInUse(existing: JobRow): ServiceError {
    return new ServiceError(
      'REQUEST_ID_IN_USE',
      `A job with requestId "${existing.id}" exists with another request; send the same request to follow it, or use a new requestId.`,
      {
        details: { requestId: existing.id, state: existing.state },
      },
    );
  }

  /** `phase: queued` of a job just queued, with its place in the queue. */
  private announce(job: { requestId: string; kind: JobKind; lane: string | null; model: string | null; position: number }): void {
    this.events.phase({
      requestId: job.requestId,
      kind: job.kind,
      phase: 'queued',
      state: 'queued',
      position: job.position,
      provider: job.lane ?? job.kind,
      ...(job.model ? { model: job.model } : {}),
    });
  }

  /** Settles with the job's result or rejects with its error, whenever and wherever it ends. */
  private outcome(row: JobRow): Promise<JobResult> {
    return this.answer(row.finished_at ? Promise.resolve(outcomeOf(row)) : this.watch(row.id));
  }

  private watch(requestId: string): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const list = this.waiters.get(requestId) ?? [];
      list.push(resolve);
      this.waiters.set(requestId, list);
    });
  }

  private answer(settled: Promise<Outcome>): Promise<JobResult> {
    const answer = settled.then((outcome) => {
      if (outcome.ok) return outcome.result;
      throw outcome.error;
    });
    // A waiter nobody awaits (an async job's) must not become an unhandled rejection.
    answer.catch(() => {});
    return answer;
  }

  private settle(requestId: string, outcome: Outcome): void {
    const list = this.waiters.get(requestId);
    if (!list) return;
    this.waiters.delete(requestId);
    for (const resolve of list) resolve(outcome);
  }

  /**
   * A job's claim policy, decided once at submit and stored on its row: its
   * pool (its lane, else its kind) and that pool's limit, its time budget,
   * and whether its first start is its billing checkpoint.
   */
  private policyOf(stored: StoredJob, lane: string | null): Pick<NewJobRow, 'pool' | 'pool_limit' | 'budget_ms' | 'reaches_at_start'> {
    const handler = this.handlerOf(stored.kind);
    const limit = lane === null ? (handler.maxRunning ?? Infinity) : this.limits.lane(lane);
    return {
      pool: lane ?? stored.kind,
      pool_limit: Number.isFinite(limit) ? limit : null,
      budget_ms: handler.budgetMs(this.ctx, stored),
      reaches_at_start: handler.reachesUpstreamAtStart(stored) ? 1 : 0,
    };
  }

  /** One claim pass of this engine, as data: the store decides in one statement (the policy is on the rows). */
  private claimRequest(): ClaimRequest {
    const at = Date.now();
    return { owner: this.owner, now: at, leaseUntil: at + this.leaseMs, overall: this.limits.overall, kinds: Object.keys(this.handlers) };
  }

  /** One claim pass: what may start now, within the limits, starts here; then the next parked job's wake is set. */
  private pump(): void {
    if (this.stopping || !this.store.open) return;
    this.store
      .claim(this.claimRequest())
      .then((rows) => {
        this.startClaimed(rows);
        return this.store.nextWake();
      })
      .then(
        (at) => this.wakeAt(at),
        (error: unknown) => console.error('A claim pass of the job engine failed:', error),
      );
  }

  /** A claim pass when the earliest parked job is due (one timer, for the earliest). */
  private wakeAt(at: number | null): void {
    if (at === null || this.stopping || (this.wake && this.wake.at <= at)) return;
    clearTimeout(this.wake?.timer);
    const timer = setTimeout(
      () => {
        this.wake = undefined;
        this.pump();
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.wake = { at, timer };
  }

  /**
   * Starts the rows a claim gave this engine. A row whose stored request its
   * kind cannot read ends `failed`: left, it would hold up its ordering key,
   * and every pass would trip on it.
   */
  private startClaimed(rows: readonly JobRow[]): void {
    for (const row of rows) {
      let stored: StoredJob;
      try {
        stored = this.stored(row);
      } catch (error) {
        const failure = new ServiceError(
          'INTERNAL_ERROR',
          `The stored request of job ${row.id} cannot be read (${error instanceof Error ? error.message : String(error)}); it was not run.`,
          { details: { requestId: row.id } },
        );
        this.held.delete(row.id);
        // Ended, it frees its slot and its ordering key: another pass follows.
        this.end(row, 'failed', failure).then(
          () => this.pump(),
          (cause: unknown) => console.error(`job ${row.id} could not be ended:`, cause),
        );
        continue;
      }
      this.start(row, stored);
    }
  }

  private start(row: JobRow, stored = this.stored(row)): RunningJob {
    const held = this.held.get(row.id);
    this.held.delete(row.id);
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
    this.running.set(row.id, job);
    // A cancel asked while it was parked (or claimed elsewhere a moment ago) ends it as it starts.
    if (row.cancel_requested) job.cancel('The job was cancelled (DELETE /api/inflight).');
    void this.run(job, resumeAt);
    return job;
  }

  /**
   * Runs a claimed job to its end: the handler, then exactly one `done` (with
   * the result) or `error`. The stored state is written before the event goes
   * out, so a client that reads the job after an event finds at least that state.
   */
  private async run(job: RunningJob, resumeAt: number | null): Promise<void> {
    const { ctx, events } = this;
    const { requestId, kind } = job;
    const base = { requestId, kind };
    let parked = false;
    try {
      const context = this.context(job);
      if (resumeAt !== null && resumeAt > Date.now()) await context.waitUntil(resumeAt);
      // Once a handler returns, its result stands: a cancel that came during saving does not undo saved work.
      const result = await this.handlerOf(kind).run(ctx, context);
      if (await this.store.finish(requestId, { state: 'succeeded', result, phase: job.phase }, now())) {
        // Controls a lane dropped are on the event too (issue 29), not only inside the result.
        const warnings =
          'warnings' in result && Array.isArray(result.warnings) && result.warnings.length ? { warnings: result.warnings } : {};
        events.done({ ...base, result, ...warnings });
        this.settle(requestId, { ok: true, result });
      }
    } catch (error) {
      if (isParked(error)) {
        // Its row waits, with no lease: the inputs decoded here and what it keeps stay for its next run, and a pass claims it when due.
        parked = true;
        if (job.inputs !== undefined) this.held.set(requestId, { request: job.request, inputs: job.inputs });
        this.wakeAt(error.until);
        return;
      }
      const failure = jobFailure(job.signal, error, requestId, studioStorage(this.ctx));
      if (!job.detached && this.store.open) {
        const state: JobState = failure.code === 'JOB_CANCELLED' ? 'cancelled' : 'failed';
        const payload = failure.toBody().error;
        if (await this.store.finish(requestId, { state, error: payload, phase: job.phase }, now())) {
          events.error({ ...base, error: payload });
          this.settle(requestId, { ok: false, error: failure });
        }
      }
    } finally {
      if (!parked) this.kept.delete(requestId);
      if (this.running.get(requestId) === job) this.running.delete(requestId);
      job.markSettled();
      this.pump();
    }
  }

  private context(job: RunningJob): JobContext {
    const { events, store } = this;
    const { requestId, kind } = job;
    /** A write of this job's row; a job that outlived the shutdown grace finds the store closed: nothing to record then. */
    const write = async (action: () => Promise<unknown>): Promise<void> => {
      if (store.open) await action();
    };
    /** A write nobody waits for: its failure is logged, never the job's. */
    const record = (action: () => Promise<unknown>): void => {
      write(action).catch((error: unknown) => console.error(`job ${requestId}: a write failed:`, error));
    };
    let phaseWrite: NodeJS.Immediate | undefined;
    const writePhase = () => {
      phaseWrite = undefined;
      record(() => store.setPhase(requestId, job.phase, now()));
    };
    // An ending job's last phase goes with its end; one detached at shutdown stays unfinished, so its phase is written now.
    void job.settled.then(() => {
      if (!phaseWrite) return;
      clearImmediate(phaseWrite);
      phaseWrite = undefined;
      if (job.detached) writePhase();
    });
    return {
      requestId,
      kind,
      lane: job.lane,
      model: job.model,
      request: job.request,
      inputs: job.inputs,
      operation: job.operation,
      deadline: job.deadline,
      polls: job.polls,
      signal: job.signal,
      get detached() {
        return job.detached;
      },
      events,
      phase(phase, fields = {}) {
        job.setPhase(phase);
        // The row follows within one turn of the loop, off the request's path (the upstream
        // call or the image write is under way by then); several phases in one turn write once.
        phaseWrite ??= setImmediate(writePhase);
        events.phase({ requestId, kind, phase, state: 'running', ...fields });
      },
      recordPhase(phase) {
        job.setPhase(phase);
        phaseWrite ??= setImmediate(writePhase);
      },
      partial({ index, b64, format, slot }) {
        events.partial({ requestId, kind, index, format, ...(slot !== undefined ? { slot } : {}) }, b64);
      },
      // Stored before the call is sent: a crash after it must not send it again.
      sending: () => write(() => store.markReachedUpstream(requestId, now())),
      async recordOperation(operation, id, state) {
        job.operation = operation;
        await write(() => store.setOperation(requestId, operation, id, state, now()));
      },
      upstreamState: (state) => record(() => store.setUpstreamState(requestId, state, now())),
      waitUntil: async (at, polls = job.polls) => {
        if (job.signal.aborted) throw job.signal.reason;
        // One that can resume from its operation parks (false: a cancel was asked meanwhile, so it waits here and the heartbeat ends it).
        if (this.canPark(job) && store.open && (await store.park(requestId, this.owner, at, polls, now()))) throw new JobParked(at);
        await write(() => store.setActivity(requestId, 'waiting', at, now()));
        try {
          await sleep(Math.max(0, at - Date.now()), undefined, { signal: job.signal });
        } catch {
          throw job.signal.reason;
        }
        await write(() => store.setActivity(requestId, 'running', null, now()));
      },
      cancelConfirmed: (confirmed) => record(() => store.setCancelConfirmed(requestId, confirmed)),
      keep: <T extends object>(key: string, make: () => T): T => {
        let memory = this.kept.get(requestId);
        if (!memory) this.kept.set(requestId, (memory = new Map()));
        const found = memory.get(key);
        if (found) return found as T;
        const made = make();
        memory.set(key, made);
        return made;
      },
    };
  }

  /** Whether a running job parks at its waits: it continues from its recorded operation, and shutdown is not under way. */
  private canPark(job: RunningJob): boolean {
    if (this.stopping || job.operation === null) return false;
    return this.handlerOf(job.kind).canResume({ kind: job.kind, request: job.request, operation: job.operation });
  }

  /** A job at any point of its life, and until the retention sweep after it ended. */
  async get(requestId: string): Promise<JobRecord | undefined> {
    const row = await this.store.find(requestId);
    if (!row) return undefined;
    const live = this.running.get(requestId);
    return recordOf(row, {
      position: row.state === 'queued' ? await this.store.position(row) : null,
      ...(live ? { phase: live.phase } : {}),
      attempts: await this.store.attempts(row.retry_of ?? row.id),
    });
  }

  /** The jobs not finished (GET /api/inflight): running and waiting ones first, then the queue in order. */
  async inflight(): Promise<InflightJob[]> {
    const rows = await this.store.unfinished();
    const queued = rows.filter((row) => row.state === 'queued').sort((a, b) => b.priority - a.priority || a.seq - b.seq);
    const active = rows.filter((row) => row.state !== 'queued');
    return [
      ...active.map((row) => {
        const live = this.running.get(row.id);
        return inflightOf(row, { ...(live ? { phase: live.phase } : {}), cancelling: live?.signal.aborted ?? false });
      }),
      ...queued.map((row, index) => inflightOf(row, { position: index + 1, cancelling: false })),
    ];
  }

  /** The jobs that ended since `since` (GET /api/jobs), the newest end first. */
  async finishedSince(since: string, limit: number): Promise<FinishedJob[]> {
    return (await this.store.finishedSince(since, limit)).map(finishedOf);
  }

  /**
   * Cancels a job. A queued one ends at once and never runs; a running or
   * waiting one here is aborted (its upstream call, its wait, and the vendor's
   * cancel where the lane has one) and awaited briefly, then ended anyway (the
   * spec's "force-remove"); one running in another process is asked to stop.
   */
  async cancel(requestId: string, message = 'The job was cancelled (DELETE /api/inflight).'): Promise<InflightJob> {
    const row = await this.store.find(requestId);
    if (!row || row.finished_at)
      throw new ServiceError('JOB_NOT_FOUND', `No in-flight job with requestId "${requestId}".`, { details: { requestId } });
    const cancelled = inflightOf(row, { cancelling: true });
    if (row.state === 'queued') {
      if (
        await this.end(
          row,
          'cancelled',
          new ServiceError('JOB_CANCELLED', `${message} It had not started.`, { details: { requestId } }),
          'queued',
        )
      ) {
        this.held.delete(requestId);
        return cancelled;
      }
      // Claimed meanwhile: asked below, here or through the row.
    }
    let job = this.running.get(requestId);
    if (!job && row.state === 'waiting' && row.lease_owner === null) {
      // Parked: asked, then taken now whatever the limits, so it starts cancelled and its cancel reaches the vendor at once.
      await this.store.requestCancel(requestId, now());
      const taken = await this.store.take(requestId, this.owner, Date.now() + this.leaseMs, now());
      if (taken) job = this.start(taken);
    }
    if (!job) {
      await this.store.requestCancel(requestId, now());
      // Claimed here a moment ago (its start follows its claim's answer): cancelled as it starts; elsewhere, at that process's heartbeat.
      setImmediate(() => this.running.get(requestId)?.cancel(message));
      return cancelled;
    }
    job.cancel(message);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([job.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, CANCEL_GRACE_MS)))]);
    clearTimeout(timer);
    if (this.running.get(requestId) === job) {
      // It did not wind down in time: it ends now; whatever it does later finds the row ended.
      this.running.delete(requestId);
      await this.end(
        row,
        'cancelled',
        job.signal.reason instanceof ServiceError ? job.signal.reason : new ServiceError('JOB_CANCELLED', message),
      );
      this.pump();
    }
    return { ...cancelled, phase: job.phase };
  }

  /** Ends a job that is not running here, with its `error` event; false when it had ended or left `from`. */
  private async end(row: JobRow, state: JobState, error: ServiceError, from?: JobState): Promise<boolean> {
    const payload = error.toBody().error;
    if (!(await this.store.finish(row.id, { state, error: payload, ...(from ? { from } : {}) }, now()))) return false;
    this.events.error({ requestId: row.id, kind: kindOf(row), error: payload });
    this.settle(row.id, { ok: false, error });
    return true;
  }

  /**
   * A new attempt of a failed, cancelled or interrupted job: the same stored
   * request and input images, its own requestId (default `<first>~<attempt>`),
   * linked to the first attempt; every attempt stays listed.
   */
  async retry(requestId: string, newRequestId?: string): Promise<RetryAnswer> {
    const row = await this.store.find(requestId);
    if (!row) throw new ServiceError('JOB_NOT_FOUND', `No job with requestId "${requestId}".`, { details: { requestId } });
    if (!RETRYABLE_JOB_STATES.includes(row.state)) {
      throw new ServiceError('JOB_NOT_RETRYABLE', `The job is ${row.state}; only a failed, cancelled or interrupted job can be retried.`, {
        details: { requestId, state: row.state },
      });
    }
    const first = row.retry_of ?? row.id;
    const attempt = Math.max(...(await this.store.attempts(first)).map((known) => known.attempt)) + 1;
    const suffix = `~${attempt}`;
    const id = newRequestId ?? `${first.slice(0, 128 - suffix.length)}${suffix}`;
    if (!REQUEST_ID_PATTERN.test(id))
      throw new ServiceError('BAD_REQUEST', `"${id}" is not a valid requestId.`, {
        details: { field: 'requestId', pattern: REQUEST_ID_PATTERN.source },
      });
    const inserted = await this.store.insert(
      {
        id,
        kind: row.kind,
        lane: row.lane,
        model: row.model,
        request: row.request,
        created_at: now(),
        priority: row.priority,
        ordering_key: row.ordering_key,
        fingerprint: null,
        attempt,
        retry_of: first,
        ...this.policyOf(storedJobOf(row), row.lane),
      },
      await this.store.inputHashes(row.id),
    );
    if ('existing' in inserted)
      throw new ServiceError('REQUEST_ID_IN_USE', `A job with requestId "${id}" exists; choose another requestId for the retry.`, {
        details: { requestId: id },
      });
    this.announce({ requestId: id, kind: kindOf(row), lane: row.lane, model: row.model, position: inserted.position });
    this.pump();
    return { requestId: id, status: 'accepted', attempt, retryOf: first };
  }

  /**
   * Start-up, and every heartbeat after: jobs whose owner is gone are
   * continued by the billing rule. Then the heartbeat runs: leases renewed,
   * cancels asked by other processes honoured, waiters of jobs that ended
   * elsewhere settled, and a claim pass.
   */
  async recover(): Promise<{ resumed: number; requeued: number; interrupted: number }> {
    const counts = await this.adoptOrphans();
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.tick(), Math.min(1000, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    this.pump();
    return counts;
  }

  private async adoptOrphans(): Promise<{ resumed: number; requeued: number; interrupted: number }> {
    // A job this engine runs is never an orphan, whatever its lease says (the heartbeat renews it first anyway).
    const orphans = (await this.store.orphans(Date.now(), ownerIsDead)).filter(
      (row) => !(row.lease_owner === this.owner && this.running.has(row.id)),
    );
    const counts = { resumed: 0, requeued: 0, interrupted: 0 };
    if (orphans.length === 0) return counts;
    const errors = new Map<string, ServiceError>();
    // Ours first (one process wins), then decided by the billing rule, in one transaction of the store.
    const adopted = await this.store.adopt(
      orphans,
      () => ({ owner: this.owner, until: Date.now() + this.leaseMs, at: now() }),
      (row) => {
        if (row.operation !== null && this.canResume(row)) return { action: 'resumed' };
        const error = new ServiceError(
          'JOB_INTERRUPTED',
          'The studio stopped after this job may have reached its upstream, and nothing of it was saved; it is not sent again by itself. Retry it (POST /api/jobs/:id/retry).',
          { details: { requestId: row.id, phase: row.phase } },
        );
        errors.set(row.id, error);
        return { action: 'interrupted', error: error.toBody().error };
      },
    );
    for (const { row, action } of adopted) {
      counts[action] += 1;
      if (action === 'resumed') this.start(row);
      const error = errors.get(row.id);
      if (action === 'interrupted' && error) {
        this.events.error({ requestId: row.id, kind: kindOf(row), error: error.toBody().error });
        this.settle(row.id, { ok: false, error });
      }
    }
    return counts;
  }

  private async tick(): Promise<void> {
    const { store } = this;
    // One heartbeat at a time: a slow store does not pile them up.
    if (this.stopping || this.ticking || !store.open) return;
    this.ticking = true;
    try {
      const at = Date.now();
      if (this.running.size && at - this.lastRenewal >= this.leaseMs / 3) {
        await store.renewLeases(this.owner, at + this.leaseMs);
        this.lastRenewal = at;
      }
      for (const id of await store.cancelRequested(this.owner))
        this.running.get(id)?.cancel('The job was cancelled (DELETE /api/inflight).');
      await this.adoptOrphans();
      for (const requestId of [...this.waiters.keys()]) {
        const row = this.running.has(requestId) ? undefined : await store.find(requestId);
        if (row?.finished_at) this.settle(requestId, outcomeOf(row));
      }
      // Inputs held for a job another process claimed (it loads them from the stored files) are let go.
      for (const requestId of [...this.held.keys()]) {
        if (this.running.has(requestId)) continue;
        const row = await store.find(requestId);
        if (row?.state !== 'queued' && !(row?.state === 'waiting' && row.lease_owner === null)) this.held.delete(requestId);
      }
      this.pump();
    } catch (error) {
      console.error('The job engine heartbeat failed:', error);
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Shutdown: claims stop; what can resume is detached (it stays unfinished
   * with its lease released, and the next start continues it), what cannot is
   * cancelled; queued jobs stay queued. Waits at most `graceMs` for the
   * running ones to settle. A job already saving finishes its save.
   */
  async stopAll(message: string, graceMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    clearTimeout(this.wake?.timer);
    const jobs = [...this.running.values()];
    for (const job of jobs) {
      const handler = this.handlerOf(job.kind);
      job.detached = job.operation !== null && handler.canResume({ kind: job.kind, request: job.request, operation: job.operation });
      job.cancel(message);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(jobs.map((job) => job.settled)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    if (this.store.open) await this.store.releaseLeases(this.owner);
  }

  /** Removes jobs that ended longer ago than the retention, then the input files no job holds; returns how many jobs. */
  async sweep(retentionMs: number, at = Date.now()): Promise<number> {
    const removed = await this.store.sweepFinished(new Date(at - retentionMs).toISOString());
    await this.inputs.sweep(async (hash) => !this.store.open || (await this.store.inputHeld(hash)), INPUT_GRACE_MS, at);
    return removed;
  }
}
