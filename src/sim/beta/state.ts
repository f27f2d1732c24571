import type { Simulator } from '../harness.js';
import type { ServiceAccounts } from './service-accounts.js';

/** What the routes of the `:generateContent` simulator share. */
export interface BetaState {
  readonly simulator: Simulator;
  /** Keys the key surface accepts. */
  readonly apiKeys: ReadonlySet<string>;
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey?: (key: string) => boolean;
  readonly accounts: ServiceAccounts;
  /** Added to every image answer (a render's time). */
  readonly generationDelayMs: number;
  /** Images answered so far. */
  generated: number;
}
