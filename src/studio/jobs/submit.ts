import { ServiceError } from '../errors.js';
import { storageFullError } from '../../common/storage-full.js';
import { RETRYABLE_JOB_STATES, REQUEST_ID_PATTERN, type JobKind, type JobResult, type RetryAnswer } from '../api/index.js';
import type { Dispatcher } from './claim.js';
import { now, type EngineCore } from './engine.js';
import type { StoredJob } from './handlers.js';
import type { JobRow, NewJobRow } from './job-store.js';
import { studioStorage } from './limits.js';
import { kindOf, storedJobOf } from './records.js';
import type { JobSpec } from './running-job.js';

// Accepting work: a new job (its input images stored, its row queued with its
// claim policy, `phase: queued` published with its position, a claim pass in
// the same transaction) and a new attempt of one that ended. The same
// requestId with the same body answers the job that has it (never a second
// run); with another body, REQUEST_ID_IN_USE.

export interface Submitted {
  readonly requestId: string;
  /** The same requestId and body came before: this is that job, not a new one. */
  readonly existing: boolean;
  /** Settles with the job's result, or rejects with its error. */
  readonly outcome: Promise<JobResult>;
}

/** Whether a stored job is the one a client's request (its fingerprint) asks for again. */
const sameRequest = (existing: JobRow, fingerprint: string | null): boolean => fingerprint !== null && existing.fingerprint === fingerprint;

const requestIdInUse = (existing: JobRow): ServiceError =>
  new ServiceError(
    'REQUEST_ID_IN_USE',
    `A job with requestId "${existing.id}" exists with another request; send the same request to follow it, or use a new requestId.`,
    { details: { requestId: existing.id, state: existing.state } },
  );

/**
 * A job's claim policy, decided once at submit and stored on its row: its
 * pool (its lane, else its kind) and that pool's limit, its time budget, and
 * whether its first start is its billing checkpoint.
 */
function policyOf(
  core: EngineCore,
  stored: StoredJob,
  lane: string | null,
): Pick<NewJobRow, 'pool' | 'pool_limit' | 'budget_ms' | 'reaches_at_start'> {
  const handler = core.handlerOf(stored.kind);
  const limit = lane === null ? (handler.maxRunning ?? Infinity) : core.limits.lane(lane);
  return {
    pool: lane ?? stored.kind,
    pool_limit: Number.isFinite(limit) ? limit : null,
    budget_ms: handler.budgetMs(core.ctx, stored),
    reaches_at_start: handler.reachesUpstreamAtStart(stored) ? 1 : 0,
  };
}

export class Submission {
  constructor(
    private readonly core: EngineCore,
    private readonly dispatcher: Dispatcher,
  ) {}

  async submit(spec: JobSpec): Promise<Submitted> {
    const { core } = this;
    const { requestId, kind } = spec;
    core.handlerOf(kind);
    // Before anything is stored or billed: a job that could not save its result is refused, by name.
    const spot = studioStorage(core.ctx);
    const room = await core.ctx.assets.capacity();
    if (room && room.freeBytes < spot.reserveBytes) throw storageFullError(spot, room.freeBytes);
    const images = spec.inputImages ?? [];
    if (images.length) await core.inputs.store(images);
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
      ...policyOf(core, { kind, request: spec.request, operation: null }, spec.lane),
    };
    // Held before the insert: a claim in the same transaction starts it from here, not from JSON.
    const alreadyHeld = core.held.has(requestId);
    if (!alreadyHeld) core.held.set(requestId, { request: spec.request, inputs: spec.inputs });
    const inserted = await core.store.insert(
      row,
      [...new Set(images.map((image) => image.sha256))],
      core.stopping ? undefined : this.dispatcher.request(),
    );
    if ('existing' in inserted) {
      if (!alreadyHeld) core.held.delete(requestId);
      const { existing } = inserted;
      if (sameRequest(existing, spec.fingerprint ?? null)) return { requestId, existing: true, outcome: core.outcomes.of(existing) };
      throw requestIdInUse(existing);
    }
    // Watched before it can start, so even a job that ends at once reaches its waiter with its own error.
    const outcome = core.outcomes.answer(core.outcomes.watch(requestId));
    // Published before anything claimed starts: `phase: queued` is always a job's first event.
    this.announce({ requestId, kind, lane: spec.lane, model: spec.model, position: inserted.position });
    this.dispatcher.startClaimed(inserted.claimed);
    return { requestId, existing: false, outcome };
  }

  /** REQUEST_ID_IN_USE when another request has this requestId (the same request may follow its job). */
  async checkRequestId(requestId: string, fingerprint: string | null): Promise<void> {
    const existing = await this.core.store.find(requestId);
    if (existing && !sameRequest(existing, fingerprint)) throw requestIdInUse(existing);
  }

  /**
   * A new attempt of a failed, cancelled or interrupted job: the same stored
   * request and input images, its own requestId (default `<first>~<attempt>`),
   * linked to the first attempt; every attempt stays listed.
   */
  async retry(requestId: string, newRequestId?: string): Promise<RetryAnswer> {
    const { core } = this;
    const row = await core.store.find(requestId);
    if (!row) throw new ServiceError('JOB_NOT_FOUND', `No job with requestId "${requestId}".`, { details: { requestId } });
    if (!RETRYABLE_JOB_STATES.includes(row.state)) {
      throw new ServiceError('JOB_NOT_RETRYABLE', `The job is ${row.state}; only a failed, cancelled or interrupted job can be retried.`, {
        details: { requestId, state: row.state },
      });
    }
    let stored: StoredJob;
    try {
      stored = storedJobOf(row);
    } catch (error) {
      throw new ServiceError('JOB_NOT_RETRYABLE', `The stored request of job ${requestId} cannot be read, so it cannot run again.`, {
        details: { requestId, state: row.state, reason: error instanceof Error ? error.message : String(error) },
      });
    }
    const first = row.retry_of ?? row.id;
    const attempt = Math.max(...(await core.store.attempts(first)).map((known) => known.attempt)) + 1;
    const suffix = `~${attempt}`;
    const id = newRequestId ?? `${first.slice(0, 128 - suffix.length)}${suffix}`;
    if (!REQUEST_ID_PATTERN.test(id))
      throw new ServiceError('BAD_REQUEST', `"${id}" is not a valid requestId.`, {
        details: { field: 'requestId', pattern: REQUEST_ID_PATTERN.source },
      });
    const inserted = await core.store.insert(
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
        ...policyOf(core, stored, row.lane),
      },
      await core.store.inputHashes(row.id),
    );
    if ('existing' in inserted)
      throw new ServiceError('REQUEST_ID_IN_USE', `A job with requestId "${id}" exists; choose another requestId for the retry.`, {
        details: { requestId: id },
      });
    this.announce({ requestId: id, kind: kindOf(row), lane: row.lane, model: row.model, position: inserted.position });
    this.dispatcher.pump();
    return { requestId: id, status: 'accepted', attempt, retryOf: first };
  }

  /** `phase: queued` of a job just queued, with its place in the queue. */
  private announce(job: { requestId: string; kind: JobKind; lane: string | null; model: string | null; position: number }): void {
    this.core.events.phase({
      requestId: job.requestId,
      kind: job.kind,
      phase: 'queued',
      state: 'queued',
      position: job.position,
      provider: job.lane ?? job.kind,
      ...(job.model ? { model: job.model } : {}),
    });
  }
}
