import { setTimeout as sleep } from 'node:timers/promises';
import { now, type EngineCore } from './engine.js';
import { JobParked } from './parked.js';
import type { RunningJob } from './running-job.js';

// A job's wait between two status calls of its upstream (JobContext.waitUntil).
// One that can resume from its recorded operation parks: its row waits with
// the time of the next call and no lease, and the run ends with JobParked (no
// slot, no timer, no promise held); any engine's claim runs it again when due.
// One that cannot (a batch, a turn with several images), or whose wait is
// short, waits here, in place, holding its slot.

/**
 * A wait shorter than this stays in place: a park and a claim (two writes, a pass) would cost more
 * than the slot they free (flow long-polls and asks again at once; gamma's first interval is 250 ms).
 */
const PARK_MIN_MS = 200;

/** Whether a running job parks at a wait until `at`: long enough, it continues from its recorded operation, and shutdown is not under way. */
function canPark(core: EngineCore, job: RunningJob, at: number): boolean {
  if (core.stopping || job.operation === null || at - Date.now() < PARK_MIN_MS) return false;
  return core.handlerOf(job.kind).canResume({ kind: job.kind, request: job.request, operation: job.operation });
}

/** Waits until `at` (rejects with the cancel reason), or parks (rejects with JobParked); `polls` is stored with a park. */
export async function waitOrPark(core: EngineCore, job: RunningJob, at: number, polls: number): Promise<void> {
  const { store } = core;
  if (job.signal.aborted) throw job.signal.reason;
  // False: a cancel was asked meanwhile, so it waits here and the heartbeat ends it.
  if (canPark(core, job, at) && store.open && (await store.park(job.requestId, core.owner, at, polls, now()))) throw new JobParked(at);
  if (store.open) await store.setActivity(job.requestId, 'waiting', at, now());
  try {
    await sleep(Math.max(0, at - Date.now()), undefined, { signal: job.signal });
  } catch {
    throw job.signal.reason;
  }
  if (store.open) await store.setActivity(job.requestId, 'running', null, now());
}
