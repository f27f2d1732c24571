import type { z } from 'zod';
import { isErrorCode, ServiceError } from '../errors.js';
import { toServiceError } from '../../common/http-errors.js';
import type { StorageSpot } from '../../common/storage-full.js';
import {
  errorPayload,
  jobRecord,
  JOB_KINDS,
  JOB_PHASES,
  JOB_REQUESTS,
  JOB_RESULTS,
  type ErrorPayload,
  type FinishedJob,
  type InflightJob,
  type JobKind,
  type JobPhase,
  type JobRecord,
  type JobRequestOf,
  type JobResult,
} from '../api/index.js';
import type { UpstreamOperation } from '../lanes/types.js';
import type { StoredJob } from './handlers.js';
import type { JobRow } from '../store/jobs.js';
import { UpstreamError } from '../upstream/index.js';

// A stored job row as the API shows it, and the few readings of a row the
// engine makes. Stored JSON is parsed with the contract's schemas: a row that
// does not match is reported, never cast.

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const kindOf = (row: Pick<JobRow, 'kind'>): JobKind => {
  const kind = JOB_KINDS.find((known) => known === row.kind);
  if (!kind) throw new Error(`A stored job has an unknown kind "${row.kind}".`);
  return kind;
};

export const phaseOf = (row: Pick<JobRow, 'phase'>): JobPhase | null => JOB_PHASES.find((known) => known === row.phase) ?? null;

const jsonObject = (text: string | null): Record<string, unknown> | null => {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : null;
};

export const operationOf = (row: Pick<JobRow, 'operation'>): UpstreamOperation | null => jsonObject(row.operation);

/** A stored request, parsed with its kind's schema (the contract's): the request of that kind, or an error naming the job. */
function parseRequest<K extends JobKind>(kind: K, row: Pick<JobRow, 'id' | 'request'>): JobRequestOf<K> {
  const schema: z.ZodType<JobRequestOf<K>> = JOB_REQUESTS[kind];
  const parsed = schema.safeParse(JSON.parse(row.request));
  if (!parsed.success) throw new Error(`The stored request of job ${row.id} (${kind}) does not match its kind: ${parsed.error.message}`);
  return parsed.data;
}

/** A stored job as a handler judges it: its kind, its request typed by that kind, its operation. */
export function storedJobOf(row: Pick<JobRow, 'id' | 'kind' | 'request' | 'operation'>): StoredJob {
  const kind = kindOf(row);
  return { kind, request: parseRequest(kind, row), operation: operationOf(row) };
}

/** The stored result, parsed with its kind's schema (a node result keeps its node fields). */
export function resultOf(row: Pick<JobRow, 'id' | 'kind' | 'result'>): JobResult | null {
  if (row.result === null) return null;
  const kind = kindOf(row);
  const parsed = JOB_RESULTS[kind].safeParse(JSON.parse(row.result));
  if (!parsed.success) throw new Error(`The stored result of job ${row.id} (${kind}) does not match its kind: ${parsed.error.message}`);
  return parsed.data;
}

export const errorOf = (row: Pick<JobRow, 'error'>): ErrorPayload | null =>
  row.error === null ? null : errorPayload.parse(JSON.parse(row.error));

/** The error a finished job ended with, as the error it was (a sync client of a duplicate request gets the same answer). */
export function storedFailure(row: JobRow): ServiceError {
  const payload = errorOf(row);
  if (!payload || !isErrorCode(payload.code))
    return new ServiceError('INTERNAL_ERROR', `The job ended ${row.state} without a known error.`, { details: { requestId: row.id } });
  return new ServiceError(payload.code, payload.message, payload.details ? { details: payload.details } : {});
}

/**
 * Why a job ended badly, in our terms: the cancel reason wins over whatever the abort caused.
 * `storage`: the studio's, which a full-disk failure names.
 */
export function jobFailure(signal: AbortSignal, error: unknown, requestId: string, storage?: StorageSpot): ServiceError {
  if (signal.aborted && signal.reason instanceof ServiceError) return signal.reason;
  if (error instanceof UpstreamError) return error.toServiceError();
  const mapped = toServiceError(error, storage);
  if (mapped.code === 'INTERNAL_ERROR') console.error(`job ${requestId} failed:`, error);
  // Any ServiceError thrown in the studio carries one of its codes; the check says so to the type.
  return mapped instanceof ServiceError ? mapped : new ServiceError('INTERNAL_ERROR', mapped.message);
}

/** A multimode job's output count, from its stored slots. */
const slotsOf = (job: StoredJob): number | undefined =>
  job.kind === 'multimode' && 'slots' in job.request ? job.request.slots.length : undefined;

/** A finished job as GET /api/jobs lists it. */
export function finishedOf(row: JobRow): FinishedJob {
  return {
    requestId: row.id,
    kind: kindOf(row),
    provider: row.lane ?? row.kind,
    ...(row.model ? { model: row.model } : {}),
    state: row.state,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at ?? row.updated_at,
    attempt: row.attempt,
    retryOf: row.retry_of,
    error: errorOf(row),
  };
}

/** The record of a stored job, checked against the contract (its request and result by its kind). */
export function recordOf(row: JobRow, extra: { position: number | null; phase?: JobPhase; attempts: readonly JobRow[] }): JobRecord {
  return jobRecord.parse({
    requestId: row.id,
    kind: kindOf(row),
    state: row.state,
    position: extra.position,
    phase: extra.phase ?? phaseOf(row),
    provider: row.lane,
    model: row.model,
    priority: row.priority,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    deadline: iso(row.deadline_at),
    nextCheckAt: row.state === 'waiting' ? iso(row.next_check_at) : null,
    upstream: row.upstream_operation_id ? { operationId: row.upstream_operation_id, state: row.upstream_state } : null,
    reachedUpstream: row.reached_upstream === 1,
    cancelConfirmed: row.cancel_confirmed === null ? null : row.cancel_confirmed === 1,
    attempt: row.attempt,
    retryOf: row.retry_of,
    attempts: extra.attempts.map((attempt) => ({
      requestId: attempt.id,
      attempt: attempt.attempt,
      state: attempt.state,
      createdAt: attempt.created_at,
      finishedAt: attempt.finished_at,
    })),
    request: JSON.parse(row.request),
    result: row.result === null ? null : JSON.parse(row.result),
    error: errorOf(row),
    instance: row.lease_owner,
  });
}

export function inflightOf(row: JobRow, live: { position?: number; phase?: JobPhase; cancelling: boolean; job?: StoredJob }): InflightJob {
  const slots = row.kind === 'multimode' ? slotsOf(live.job ?? storedJobOf(row)) : undefined;
  const state = row.state === 'queued' || row.state === 'waiting' ? row.state : 'running';
  return {
    requestId: row.id,
    kind: kindOf(row),
    provider: row.lane ?? row.kind,
    ...(row.model ? { model: row.model } : {}),
    state,
    ...(live.position !== undefined ? { position: live.position } : {}),
    phase: live.phase ?? phaseOf(row) ?? 'queued',
    createdAt: row.created_at,
    startedAt: row.started_at,
    ...(slots !== undefined ? { slots } : {}),
    attempt: row.attempt,
    priority: row.priority,
    cancelling: live.cancelling || row.cancel_requested === 1,
  };
}
