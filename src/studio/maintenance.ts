import { LIMITS } from './catalog/limits.js';
import type { StudioContext } from './context.js';
import { finishPendingAssets } from './assets.js';
import { adoptOrphanAssets } from './orphan-assets.js';
import { sweepExpired } from './history.js';

// The studio's housekeeping, started by main.ts while the server runs: at
// start-up, assets a stop left without a thumbnail get one and complete
// images whose row a crash lost come back; then, now and
// every interval, temp files of earlier boots go and expired tombstones and
// jobs past their retention are purged.

/** How often the sweeps run. */
export const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

const HOUR_MS = 60 * 60 * 1000;

/** Hours a finished job stays answerable: SVC_JOB_RETENTION_HOURS, then config.json, then 24. */
export function jobRetentionMs(ctx: StudioContext): number {
  const fromEnv = Number(ctx.env.SVC_JOB_RETENTION_HOURS);
  if (ctx.env.SVC_JOB_RETENTION_HOURS && Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv * HOUR_MS;
  return (ctx.settings.get().jobRetentionHours ?? LIMITS.jobRetentionHoursDefault) * HOUR_MS;
}

export interface Maintenance {
  stop(): void;
  /** Settles when no task is running (after stop(), await it before closing the database). */
  idle(): Promise<void>;
}

export function startMaintenance(
  ctx: StudioContext,
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): Maintenance {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = (task: () => unknown) => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await task();
      } catch (error) {
        options.onError?.(error);
      }
    });
  };
  const sweep = async () => {
    await ctx.assets.removeLeftovers();
    await sweepExpired(ctx);
    await ctx.jobs.sweep(jobRetentionMs(ctx));
  };
  run(async () => {
    await finishPendingAssets(ctx);
    await adoptOrphanAssets(ctx);
    await sweep();
  });
  // unref'd: it never holds the process open.
  const timer = setInterval(() => run(sweep), options.intervalMs ?? MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    idle: () => running,
  };
}
