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

/** The active account's numbers; tests set them with `PUT /__sim/epsilon/account` (quota bars). */
export interface EpsilonAccount {
  tier: number;
  /** What is left of the V5 charge meter, 0–100. */
  chargePercent: number;
  /** Seconds until the meter gains a percent. */
  timeUntilNextPercent: number;
  fixedCredits: number;
  purchasedCredits: number;
}

export const initialAccount = (): EpsilonAccount => ({
  tier: 3,
  chargePercent: 100,
  timeUntilNextPercent: 36,
  fixedCredits: 10_000,
  purchasedCredits: 0,
});

export function subscriptionBody(standing: Standing, account: EpsilonAccount = initialAccount()): Record<string, unknown> {
  const exhausted = standing === 'exhausted';
  return {
    tier: standing === 'inactive' ? 0 : account.tier,
    active: standing !== 'inactive',
    expiresAt: Math.floor(Date.now() / 1000) + 30 * 24 * 3600,
    perks: { maxPriorityActions: 1000, unlimitedImageGeneration: !exhausted },
    trainingStepsLeft: {
      fixedTrainingStepsLeft: exhausted ? 0 : account.fixedCredits,
      purchasedTrainingSteps: exhausted ? 0 : account.purchasedCredits,
    },
    accountCharge: {
      percent: exhausted ? 0 : account.chargePercent,
      isNegative: false,
      timeUntilNextPercent: account.timeUntilNextPercent,
    },
  };
}
