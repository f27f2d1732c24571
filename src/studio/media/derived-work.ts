// Work derived from a saved asset (its thumbnail, the full decode check),
// done after the answer, a few at a time. Tasks are keyed by asset, so a
// reader can wait for one (the thumbnail route) and a second schedule of the
// same asset is the first one's promise. Stopping drops what has not started
// (start-up repair redoes it) and waits for what runs.

export class DerivedWork {
  private readonly tasks = new Map<string, Promise<void>>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private stopped = false;

  constructor(private readonly concurrency = 2) {}

  /** Runs `task` for `key` when a slot is free; its failures are the task's own business. */
  schedule(key: string, task: () => Promise<void>): Promise<void> {
    const existing = this.tasks.get(key);
    if (existing) return existing;
    const promise = this.slot()
      .then(async (acquired) => {
        if (!acquired) return;
        try {
          await task();
        } finally {
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
