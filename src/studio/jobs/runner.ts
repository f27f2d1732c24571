import { ServiceError } from '../../common/errors.js';
import { toServiceError } from '../../common/http-errors.js';
import type { StudioContext } from '../context.js';
import { publishGeneration } from './events.js';
import { jobRegistry, type RunningJob } from './registry.js';

/** Why a job ended badly, in our terms: the cancel reason wins over whatever the abort caused. */
export function jobFailure(job: RunningJob, error: unknown): ServiceError {
  if (job.signal.aborted && job.signal.reason instanceof ServiceError) return job.signal.reason;
  const mapped = toServiceError(error);
  if (mapped.code === 'INTERNAL_ERROR') console.error(`job ${job.requestId} failed:`, error);
  return mapped;
}

/**
 * Runs a reserved job to its end: `phase: queued` first, then `work`, then
 * exactly one `done` (with the result) or `error`; the job leaves the
 * in-flight registry right after. Sync, async and SSE delivery all go
 * through here, so they are the same job.
 */
export async function runJob<T>(ctx: StudioContext, job: RunningJob, work: (job: RunningJob) => Promise<T>): Promise<T> {
  const base = { requestId: job.requestId, kind: job.kind };
  try {
    publishGeneration(ctx, 'phase', { ...base, phase: 'queued', provider: job.provider, ...(job.model ? { model: job.model } : {}) });
    const result = await work(job);
    publishGeneration(ctx, 'done', { ...base, result });
    return result;
  } catch (error) {
    const failure = jobFailure(job, error);
    publishGeneration(ctx, 'error', { ...base, error: failure.toBody().error });
    throw failure;
  } finally {
    jobRegistry(ctx).release(job);
  }
}
