import { randomBytes } from 'node:crypto';
import type { Simulator } from '../harness.js';
import type { AlphaBilling } from './billing.js';
import type { MediaStore } from './media.js';
import type { AlphaTokens } from './tokens.js';

/** What the alpha simulator's routes share. */
export interface AlphaState {
  readonly simulator: Simulator;
  /** API keys accepted (the `alpha-api` lane's credential). */
  readonly apiKeys: ReadonlySet<string>;
  readonly acceptKey: ((key: string) => boolean) | undefined;
  /** The issuer: the `alpha` lane's OAuth tokens. */
  readonly tokens: AlphaTokens;
  readonly billing: AlphaBilling;
  readonly media: MediaStore;
  /** How long an image render takes (the search and the planner take a quarter of it each). */
  readonly latencyMs: number;
  /** Images answered so far. */
  generated: number;
}

export const newId = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;
