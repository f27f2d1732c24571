import type { ChannelEvent } from '../../common/events/types.js';
import { GENERATION_TOPIC, type JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { JobSpec } from './running-job.js';

// An in-process client of a job (the MCP server's tools, the /v1 stream):
// the job is submitted to the engine like any route's (queued, its events on
// /api/events, its result in history) and followed through its own events.

export interface FollowedJob {
  readonly requestId: string;
  /** The job's result, or its error (a ServiceError with the studio's code). */
  readonly outcome: Promise<JobResult>;
}

export interface FollowOptions {
  /** Also the events of a batch's slots (`slot` set); by default only the job's own. */
  readonly slots?: boolean;
}

/**
 * Submits a planned job and passes its events to `onEvent` until it ends.
 * Subscribed before the submit, so even `phase: queued` is seen; the same
 * requestId with the same request follows the job that has it. A refused
 * submit throws (nothing stays subscribed).
 */
export async function submitAndFollow(
  ctx: StudioContext,
  job: JobSpec,
  onEvent: (event: ChannelEvent) => void,
  options: FollowOptions = {},
): Promise<FollowedJob> {
  const unsubscribe = ctx.events.subscribe((event) => {
    if (event.topic === GENERATION_TOPIC && event.requestId === job.requestId && (options.slots || event.slot === undefined))
      onEvent(event);
  });
  try {
    const submitted = await ctx.jobs.submit(job);
    const outcome = submitted.outcome.finally(unsubscribe);
    return { requestId: job.requestId, outcome };
  } catch (error) {
    unsubscribe();
    throw error;
  }
}
