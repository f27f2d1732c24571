import { hostname } from 'node:os';
import { ServiceError } from '../errors.js';
import type { Dispatcher } from './claim.js';
import { now, type EngineCore } from './engine.js';
import type { JobRow } from './job-store.js';
import { outcomeOf } from './outcomes.js';
import { kindOf } from './records.js';

// Recovery and the heartbeat. A process that dies leaves leases that expire
// (or a pid that is gone): whoever looks next continues each of its jobs by
// the billing rule: never reached the upstream → queued again; an operation
// recorded → resumed; otherwise → interrupted, never sent again by itself.
// The heartbeat renews this engine's leases, honours cancels asked through
// the rows, adopts orphans, settles waiters of jobs that ended elsewhere, lets
// go of inputs held for jobs another process claimed, and runs a claim pass.

export interface Recovered {
  readonly resumed: number;
  readonly requeued: number;
  readonly interrupted: number;
}

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

export class Recovery {
  private timer: NodeJS.Timeout | undefined;
  private lastRenewal = 0;
  private ticking = false;

  constructor(
    private readonly core: EngineCore,
    private readonly dispatcher: Dispatcher,
    /** Starts a resumed row here (run.ts). */
    private readonly start: (row: JobRow) => void,
  ) {}

  /** Start-up: orphans adopted, then the heartbeat and a first claim pass. */
  async begin(): Promise<Recovered> {
    const counts = await this.adoptOrphans();
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.tick(), Math.min(1000, Math.floor(this.core.leaseMs / 3)));
    this.timer.unref();
    this.dispatcher.pump();
    return counts;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async adoptOrphans(): Promise<Recovered> {
    const { core } = this;
    // A job this engine runs is never an orphan, whatever its lease says (the heartbeat renews it first anyway).
    const orphans = (await core.store.orphans(Date.now(), ownerIsDead)).filter(
      (row) => !(row.lease_owner === core.owner && core.running.has(row.id)),
    );
    const counts = { resumed: 0, requeued: 0, interrupted: 0 };
    if (orphans.length === 0) return counts;
    const errors = new Map<string, ServiceError>();
    // Ours first (one process wins), then decided by the billing rule, in one transaction of the store.
    const adopted = await core.store.adopt(
      orphans,
      () => ({ owner: core.owner, until: Date.now() + core.leaseMs, at: now() }),
      (row) => {
        if (row.operation !== null && core.canResume(row)) return { action: 'resumed' };
        const error = new ServiceError(
          'JOB_INTERRUPTED',
          'The studio stopped after this job may have reached its upstream, and nothing of it was saved; it is not sent again by itself. Retry it (POST /api/jobs/:id/retry).',
          { details: { requestId: row.id, phase: row.phase } },
        );
        errors.set(row.id, error);
        const payload = error.toBody().error;
        return {
          action: 'interrupted',
          error: payload,
          event: core.events.error({ requestId: row.id, kind: kindOf(row), error: payload }),
        };
      },
    );
    for (const { row, action } of adopted) {
      counts[action] += 1;
      if (action === 'resumed') this.start(row);
      const error = errors.get(row.id);
      if (action === 'interrupted' && error) core.outcomes.settle(row.id, { ok: false, error });
    }
    return counts;
  }

  private async tick(): Promise<void> {
    const { core } = this;
    const { store } = core;
    // One heartbeat at a time: a slow store does not pile them up.
    if (core.stopping || this.ticking || !store.open) return;
    this.ticking = true;
    try {
      const at = Date.now();
      if (core.running.size && at - this.lastRenewal >= core.leaseMs / 3) {
        await store.renewLeases(core.owner, at + core.leaseMs);
        this.lastRenewal = at;
      }
      for (const id of await store.cancelRequested(core.owner))
        core.running.get(id)?.cancel('The job was cancelled (DELETE /api/inflight).');
      await this.adoptOrphans();
      // Each job waited for or held here and not running here is read once (a parked job is often both).
      const ids = new Set([...core.outcomes.waited(), ...core.held.keys()].filter((id) => !core.running.has(id)));
      for (const requestId of ids) {
        const row = await store.find(requestId);
        if (row?.finished_at) core.outcomes.settle(requestId, outcomeOf(row));
        // Inputs held for a job another process claimed (it loads them from the stored files) are let go.
        if (core.held.has(requestId) && row?.state !== 'queued' && !(row?.state === 'waiting' && row.lease_owner === null))
          core.held.delete(requestId);
      }
      this.dispatcher.pump();
    } catch (error) {
      console.error('The job engine heartbeat failed:', error);
    } finally {
      this.ticking = false;
    }
  }
}
