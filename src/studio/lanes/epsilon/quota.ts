import { z } from 'zod';
import type { QuotaResult } from '../../api/quota.js';
import type { LaneEnv } from '../env.js';
import { chargeMeter, subscriptionSchema } from './subscription.js';
import { callUpstream, readJson } from '../../upstream/index.js';
import { clampPercent, notSignedIn, probeFailed } from '../../quota/outcome.js';

// epsilon's bar (contract §1.3): the subscription route with the lane's key.
// The vendor's "charge" meter says how much is left; the bar, like every
// bar, says how much is used (100 − charge), and resets when the meter next
// gains a percent.

const PROVIDER = 'epsilon';
/** Contract: 5 s. */
const SUBSCRIPTION_TIMEOUT_MS = 5000;

export async function epsilonQuota(ctx: LaneEnv): Promise<QuotaResult> {
  const key = ctx.key('epsilon');
  if (!key) return notSignedIn(PROVIDER, 'No epsilon token: set EPSILON_API_KEY (or keys.epsilon in config.json).');
  let raw: unknown;
  try {
    raw = await callUpstream(
      {
        lane: PROVIDER,
        url: `${ctx.upstreamUrl('epsilon')}/user/subscription`,
        headers: { authorization: `Bearer ${key.value}`, accept: 'application/json' },
        credentials: [key.value],
        timeoutMs: SUBSCRIPTION_TIMEOUT_MS,
      },
      (response) => readJson(PROVIDER, response, z.unknown(), 1024 * 1024),
    );
  } catch (error) {
    return probeFailed(PROVIDER, error, 'epsilon subscription route');
  }
  const parsed = subscriptionSchema.safeParse(raw);
  if (!parsed.success)
    return {
      provider: PROVIDER,
      authenticated: true,
      windows: [],
      error: true,
      reason: 'The epsilon subscription answer has no `active` field.',
    };
  const subscription = parsed.data;
  const meter = chargeMeter(raw);
  const credits = subscription.trainingStepsLeft;
  return {
    provider: PROVIDER,
    authenticated: true,
    account: { email: null, plan: subscription.active ? `Tier ${subscription.tier ?? 0}` : 'inactive' },
    windows: meter
      ? [
          {
            label: 'v5-battery',
            percent: clampPercent(100 - meter.percent),
            resetsAt:
              meter.timeUntilNextPercent === undefined ? null : new Date(Date.now() + meter.timeUntilNextPercent * 1000).toISOString(),
          },
        ]
      : [],
    epsilonAccount: {
      active: subscription.active,
      isNegative: meter?.isNegative ?? false,
      fixedCredits: credits?.fixedTrainingStepsLeft ?? 0,
      purchasedCredits: credits?.purchasedTrainingSteps ?? 0,
      meter: meter ? 'charge' : 'missing',
    },
  };
}
