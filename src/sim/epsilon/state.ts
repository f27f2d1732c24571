import type { Simulator } from '../harness.js';

/** How the simulated account stands: a paid plan, no plan, or a plan whose meter and credits are spent. */
export type Standing = 'active' | 'inactive' | 'exhausted';

/** What the epsilon simulator's routes share. */
export interface EpsilonState {
  readonly simulator: Simulator;
  readonly latencyMs: number;
  accepts(token: string): boolean;
  /** The standing the next `/user/subscription` read reports (a 402 sets it; the read resets it). */
  nextSubscription: Standing;
  /** The subscription body for a standing (quota contract §1.3). */
  subscription(standing: Standing): Record<string, unknown>;
}

export function subscriptionBody(standing: Standing): Record<string, unknown> {
  const exhausted = standing === 'exhausted';
  return {
    tier: standing === 'inactive' ? 0 : 3,
    active: standing !== 'inactive',
    expiresAt: Math.floor(Date.now() / 1000) + 30 * 24 * 3600,
    perks: { maxPriorityActions: 1000, unlimitedImageGeneration: !exhausted },
    trainingStepsLeft: { fixedTrainingStepsLeft: exhausted ? 0 : 10_000, purchasedTrainingSteps: 0 },
    accountCharge: { percent: exhausted ? 0 : 100, isNegative: false, timeUntilNextPercent: 36 },
  };
}
