import type { Simulator } from '../harness.js';

/** What the delta simulator's routes share. */
export interface DeltaState {
  readonly simulator: Simulator;
  readonly latencyMs: number;
  /** Whether a key is one this simulator takes. */
  accepts(key: string): boolean;
  /** Serves `bytes` at `/files/<name>` (image links, valid while the simulator runs); answers the URL. */
  publish(name: string, bytes: Buffer): string;
}
