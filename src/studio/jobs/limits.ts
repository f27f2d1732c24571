import { STORAGE_RESERVE_BYTES_DEFAULT, type StorageSpot } from '../../common/storage-full.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { laneVariable } from '../lanes/budget.js';

// How many jobs run at once. A job holds its slot while it is running or
// waiting on its upstream; the rest wait in the queue. The limits count every
// process that shares the database (they read the table, not a counter).

/**
 * A running job mostly waits on its upstream; its local work (the image's
 * decode, write and thumbnail) is bounded apart, by the media pool and the
 * writer thread. So the limit is about memory (each running job may hold one
 * upstream answer) and the vendors' patience, not the cores: 64 lets a batch
 * of 32 or 64 go out at once instead of in waves (bench/load).
 */
export const DEFAULT_MAX_RUNNING_JOBS = 64;

export interface JobLimits {
  readonly overall: number;
  /** A lane's limit (Infinity when it declares none and no variable sets one). */
  lane(lane: string | null): number;
}

function positiveInteger(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** `SVC_MAX_RUNNING_JOBS` overall; per lane `SVC_<LANE>_MAX_RUNNING`, else what the lane module declares. */
export function jobLimits(ctx: Pick<StudioContext, 'env'>): JobLimits {
  const overall = positiveInteger(ctx.env.SVC_MAX_RUNNING_JOBS) ?? DEFAULT_MAX_RUNNING_JOBS;
  const byLane = new Map<string, number>();
  for (const lane of Object.values(LANES)) {
    const limit = positiveInteger(ctx.env[laneVariable(lane.id, 'MAX_RUNNING')]) ?? lane.maxRunning;
    if (limit !== undefined) byLane.set(lane.id, limit);
  }
  return { overall, lane: (lane) => (lane === null ? Infinity : (byLane.get(lane) ?? Infinity)) };
}

/**
 * The studio's files (its home) and the free space a job needs there before it is accepted
 * (`SVC_STORAGE_RESERVE_BYTES`, default 64 MiB): a job accepted on a full disk could be billed
 * upstream and then have nowhere to save its image.
 */
export const studioStorage = (ctx: Pick<StudioContext, 'env' | 'paths'>): StorageSpot => ({
  dir: ctx.paths.home,
  reserveBytes: positiveInteger(ctx.env.SVC_STORAGE_RESERVE_BYTES) ?? STORAGE_RESERVE_BYTES_DEFAULT,
});
