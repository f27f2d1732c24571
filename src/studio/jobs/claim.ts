import { ServiceError } from '../errors.js';
import type { EngineCore } from './engine.js';
import type { StoredJob } from './handlers.js';
import type { ClaimRequest, JobRow } from './job-store.js';

// Claiming: one claim pass asks the store for what may start now (one
// statement over the policy on the rows: the limits, the ordering keys, the
// parked jobs that are due), and starts each row it gets here. Passes run on
// submit, on every job's end or park, on the heartbeat, and when the earliest
// parked job is due (one timer, for the earliest).

export class Dispatcher {
  private wake: { readonly at: number; readonly timer: NodeJS.Timeout } | undefined;

  constructor(
    private readonly core: EngineCore,
    /** Starts a claimed row here (run.ts). */
    private readonly start: (row: JobRow, stored: StoredJob) => void,
  ) {}

  /** One claim pass of this engine, as data: the store decides in one statement (the policy is on the rows). */
  request(): ClaimRequest {
    const { core } = this;
    const at = Date.now();
    return { owner: core.owner, now: at, leaseUntil: at + core.leaseMs, overall: core.limits.overall, kinds: Object.keys(core.handlers) };
  }

  /** One claim pass: what may start now, within the limits, starts here; then the next parked job's wake is set. */
  pump(): void {
    const { store } = this.core;
    if (this.core.stopping || !store.open) return;
    store
      .claim(this.request())
      .then((rows) => {
        this.startClaimed(rows);
        return store.nextWake();
      })
      .then(
        (at) => this.wakeAt(at),
        (error: unknown) => console.error('A claim pass of the job engine failed:', error),
      );
  }

  /** A claim pass when the earliest parked job is due (one timer, for the earliest). */
  wakeAt(at: number | null): void {
    if (at === null || this.core.stopping || (this.wake && this.wake.at <= at)) return;
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

  stop(): void {
    clearTimeout(this.wake?.timer);
    this.wake = undefined;
  }

  /**
   * Starts the rows a claim gave this engine. A row whose stored request its
   * kind cannot read ends `failed`: left, it would hold up its ordering key,
   * and every pass would trip on it.
   */
  startClaimed(rows: readonly JobRow[]): void {
    const { core } = this;
    for (const row of rows) {
      let stored: StoredJob;
      try {
        stored = core.stored(row);
      } catch (error) {
        const failure = new ServiceError(
          'INTERNAL_ERROR',
          `The stored request of job ${row.id} cannot be read (${error instanceof Error ? error.message : String(error)}); it was not run.`,
          { details: { requestId: row.id } },
        );
        core.held.delete(row.id);
        // Ended, it frees its slot and its ordering key: another pass follows.
        core.end(row, 'failed', failure).then(
          () => this.pump(),
          (cause: unknown) => console.error(`job ${row.id} could not be ended:`, cause),
        );
        continue;
      }
      this.start(row, stored);
    }
  }
}
