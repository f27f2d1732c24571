import { availableParallelism } from 'node:os';

// Work derived from a saved asset (its thumbnail, the full decode check),
// done after the answer, one per core at most: a burst of images queues here,
// never on the request path or in front of the file writes that share
// libuv's thread pool. A task starts once no new one was scheduled for
// QUIET_MS (or MAX_DEFER_MS after its own scheduling): while a burst's answers
// are still going out, libvips does not take the cores they need. Tasks are keyed by asset, so a
// reader can wait for one (the thumbnail route) and a second schedule of the
// same asset is the first one's promise. Stopping drops what has not started
// (start-up repair redoes it) and waits for what runs.

/** What the pool is doing, for /api/storage/status. */
export interface DerivedWorkStatus {
  readonly size: number;
  readonly running: number;
  readonly queued: number;
  /** Tasks finished since start (failed ones included). */
  readonly completed: number;
}

/** Scheduling quiet for this long lets derived work start. */
const QUIET_MS = 30;
/** A task never waits longer than this for quiet. */
const MAX_DEFER_MS = 1000;

export class DerivedWork {
  private readonly tasks = new Map<string, Promise<void>>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private completed = 0;
  private stopped = false;
  private lastScheduled = 0;

  constructor(private readonly concurrency = Math.max(1, availableParallelism())) {}

  status(): DerivedWorkStatus {
    return { size: this.concurrency, running: this.running, queued: this.tasks.size - this.running, completed: this.completed };
  }

  /** Runs `task` for `key` when a slot is free; its failures are the task's own business. */
  schedule(key: string, task: () => Promise<void>): Promise<void> {
    const existing = this.tasks.get(key);
    if (existing) return existing;
    const scheduled = performance.now();
    this.lastScheduled = scheduled;
    const promise = this.quiet(scheduled)
      .then(() => this.slot())
      .then(async (acquired) => {
        if (!acquired) return;
        try {
          await task();
        } finally {
          this.completed += 1;
          this.release();
        }
      })
      .finally(() => this.tasks.delete(key));
    this.tasks.set(key, promise);
    return promise;
  }

  /** The pending task of `key`, if one is scheduled. */
  pending(key: string): Promise<void> | undefined {
    return this.tasks.get(key);
  }

  /** Settles when every task scheduled so far is done (tests; start-up repair). */
  async idle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all(this.tasks.values());
  }

  /** No new task starts; settles when the running ones are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of this.waiting.splice(0)) wake();
    // A task's failure (a thumbnail on a full disk) is its own business, never the shutdown's.
    await Promise.allSettled(this.tasks.values());
  }

  /** Settles once scheduling has been quiet for QUIET_MS, or MAX_DEFER_MS after `scheduled`. */
  private async quiet(scheduled: number): Promise<void> {
    for (;;) {
      const now = performance.now();
      const wait = Math.min(this.lastScheduled + QUIET_MS, scheduled + MAX_DEFER_MS) - now;
      if (wait <= 0 || this.stopped) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private slot(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (this.running < this.concurrency) {
      this.running += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        if (this.stopped) return resolve(false);
        this.running += 1;
        resolve(true);
      }),
    );
  }

  private release(): void {
    this.running -= 1;
    this.waiting.shift()?.();
  }
}
