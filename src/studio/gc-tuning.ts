import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';

// The studio's one garbage-collector setting. On a machine of two cores, V8's
// concurrent marking threads take a core from the event loop (and from the
// writer threads and libvips) just as a burst of jobs ends together and every
// answer is due: marking is then done on the event loop, in increments (its
// pauses stay short). bench/load at N = 32 on this 2-core machine: throughput
// 0.94-0.96 of direct with concurrent marking, 0.97 without (p50 1.05 -> 1.03);
// docs/ARCHITECTURE.md "Benchmarks". With more cores the markers find idle
// ones, and V8's default stands.

/** Fewer cores than this: no concurrent marking threads. */
export const CONCURRENT_MARKING_MIN_CORES = 3;

/** Applies the setting for this machine (process-wide, once is enough); answers whether marking stays on the event loop. */
export function tuneGarbageCollection(cores = availableParallelism()): boolean {
  if (cores >= CONCURRENT_MARKING_MIN_CORES) return false;
  setFlagsFromString('--no-concurrent-marking');
  return true;
}
