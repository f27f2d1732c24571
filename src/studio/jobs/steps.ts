import type { UpstreamOperation } from '../lanes/types.js';
import type { JobContext } from './handlers.js';
import { isParked } from './parked.js';

// Long upstream work as steps, driven by the engine: start once (the
// operation is stored before anything else happens), then status calls at
// the lane's intervals (or the vendor's Retry-After) until done, the job's
// stored deadline, or a cancel. Between two calls the job is `waiting` with
// the time of the next call stored, parked (no slot, no promise: it runs
// again from its operation when due, in any engine) or, when it cannot
// resume, in place; a restarted studio continues from the operation, with the
// same deadline.

export interface Steps<Result> {
  readonly pollIntervalsMs: readonly number[];
  start(): Promise<{ readonly operation: UpstreamOperation; readonly id: string; readonly state?: string }>;
  status(
    operation: UpstreamOperation,
  ): Promise<
    | { readonly done: false; readonly state?: string; readonly retryAfterMs?: number }
    | { readonly done: true; readonly state?: string; readonly result: Result }
  >;
  cancel?(operation: UpstreamOperation): Promise<boolean>;
  timeout(operation: UpstreamOperation | null): Error;
}

/** How long a cancel may take to reach the vendor before the job ends anyway. */
const VENDOR_CANCEL_MS = 5000;

export async function runSteps<Result>(job: JobContext, steps: Steps<Result>): Promise<Result> {
  let operation = job.operation;
  let state: string | undefined;
  let expired = false;
  const expire = () => {
    expired = true;
    return steps.timeout(operation);
  };
  try {
    if (Date.now() >= job.deadline) throw expire();
    const intervals = steps.pollIntervalsMs;
    // A fresh operation is given the first interval before its first status call; a resumed one is read at once.
    let wait: number | undefined;
    /** Status calls made so far, this run's and the runs' before it (the next interval follows from it). */
    let polls = job.polls;
    if (job.signal.aborted) throw job.signal.reason;
    if (!operation) {
      const started = await steps.start();
      operation = started.operation;
      state = started.state;
      await job.recordOperation(operation, started.id, state ?? null);
      wait = intervals[0];
    }
    for (;;) {
      if (wait !== undefined) {
        const next = Date.now() + wait;
        if (next >= job.deadline) {
          // No status call would fit: wait out the budget (a cancel still ends it), then time out.
          await job.waitUntil(job.deadline, polls);
          throw expire();
        }
        await job.waitUntil(next, polls);
      }
      const status = await steps.status(operation);
      polls += 1;
      if (status.state !== undefined && status.state !== state) {
        state = status.state;
        job.upstreamState(state);
      }
      if (status.done) return status.result;
      wait = status.retryAfterMs ?? intervals[Math.min(polls, intervals.length - 1)];
    }
  } catch (error) {
    if (isParked(error)) throw error;
    // Every call's budget ends at the job's deadline, so a call cut there fails as whatever the cut
    // looked like (a timeout, a connect that never finished): past the deadline, the job says what
    // happened, its time ran out.
    const failure = !expired && !job.signal.aborted && Date.now() >= job.deadline ? expire() : error;
    // A job detached at shutdown continues at the next start: the vendor is not told to stop it.
    if (job.signal.aborted && !job.detached && operation && steps.cancel) {
      const recorded = operation;
      const confirmed = await Promise.race([
        steps.cancel(recorded).catch(() => false),
        new Promise<boolean>((resolve) => setTimeout(resolve, VENDOR_CANCEL_MS, false).unref()),
      ]);
      job.cancelConfirmed(confirmed);
    }
    throw failure;
  }
}
