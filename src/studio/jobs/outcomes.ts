import { ServiceError } from '../errors.js';
import type { JobResult } from '../api/index.js';
import type { JobRow } from './job-store.js';
import { resultOf, storedFailure } from './records.js';

// Who waits for a job's end in this process (a sync client, a duplicate
// request, an async job's own promise) and how each is answered: the result,
// or the error the job ended with, whenever and wherever it ended.

export type Outcome = { readonly ok: true; readonly result: JobResult } | { readonly ok: false; readonly error: ServiceError };

/** The outcome a finished row stands for. */
export const outcomeOf = (row: JobRow): Outcome => {
  const result = row.state === 'succeeded' ? resultOf(row) : null;
  return result ? { ok: true, result } : { ok: false, error: storedFailure(row) };
};

export class Outcomes {
  private readonly waiters = new Map<string, Array<(outcome: Outcome) => void>>();

  /** Settles with the job's result or rejects with its error: at once for a finished row, else when it ends. */
  of(row: JobRow): Promise<JobResult> {
    return this.answer(row.finished_at ? Promise.resolve(outcomeOf(row)) : this.watch(row.id));
  }

  /** Registered before the job can start, so even a job that ends at once reaches its waiter with its own error. */
  watch(requestId: string): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const list = this.waiters.get(requestId) ?? [];
      list.push(resolve);
      this.waiters.set(requestId, list);
    });
  }

  answer(settled: Promise<Outcome>): Promise<JobResult> {
    const answer = settled.then((outcome) => {
      if (outcome.ok) return outcome.result;
      throw outcome.error;
    });
    // A waiter nobody awaits (an async job's) must not become an unhandled rejection.
    answer.catch(() => {});
    return answer;
  }

  settle(requestId: string, outcome: Outcome): void {
    const list = this.waiters.get(requestId);
    if (!list) return;
    this.waiters.delete(requestId);
    for (const resolve of list) resolve(outcome);
  }

  /** The jobs someone here waits for. */
  waited(): string[] {
    return [...this.waiters.keys()];
  }
}
