import type { Simulator } from '../harness.js';
import type { ServiceAccounts } from './service-accounts.js';

/** What the routes of the `:generateContent` simulator share. */
export interface BetaState {
  readonly simulator: Simulator;
  /** Keys the key surface accepts. */
  readonly apiKeys: ReadonlySet<string>;
  /** Also accept any key with this prefix (the demo's `sim-`). */
  readonly acceptKeyPrefix?: string;
  readonly accounts: ServiceAccounts;
  /** Added to every image answer (a render's time). */
  readonly generationDelayMs: number;
  /** Images answered so far. */
  generated: number;
}
