import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import type { LaneEnv } from '../env.js';
import { callUpstream, readJson, type UpstreamError } from '../../upstream/index.js';
import { laneError } from '../lane-error.js';
import { isVersion5 } from './models.js';

// A 402 from epsilon means "subscription required", except on version-5
// models when the account has an active plan whose charge meter is empty (or
// negative) and no credits left: then the usage is exhausted (contract §5).
// Which one is decided by reading `/user/subscription` (quota contract §1.3).

/** The check gets at most this long (contract: 5 s). */
const SUBSCRIPTION_TIMEOUT_MS = 5000;

/** The fields of `/user/subscription` the studio reads (also the quota bar's). */
export const subscriptionSchema = lazy(() =>
  z.looseObject({
    active: z.boolean(),
    tier: z.number().nullish(),
    trainingStepsLeft: z
      .looseObject({ fixedTrainingStepsLeft: z.number().nullish(), purchasedTrainingSteps: z.number().nullish() })
      .nullish(),
  }),
);

export interface ChargeMeter {
  /** What is left, 0–100. */
  readonly percent: number;
  readonly isNegative: boolean;
  /** Seconds until the meter gains a percent. */
  readonly timeUntilNextPercent?: number;
}

/** The charge meter: the nested object with a numeric `percent` (its key name is not confirmed). */
export function chargeMeter(value: unknown, depth = 0): ChargeMeter | undefined {
  if (!value || typeof value !== 'object' || depth > 4) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.percent === 'number') {
    return {
      percent: record.percent,
      isNegative: record.isNegative === true,
      ...(typeof record.timeUntilNextPercent === 'number' ? { timeUntilNextPercent: record.timeUntilNextPercent } : {}),
    };
  }
  for (const inner of Object.values(record)) {
    const found = chargeMeter(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Whether the account is out of usage; undefined when the check itself fails. */
async function usageExhausted(ctx: LaneEnv, key: string, signal: AbortSignal): Promise<boolean | undefined> {
  try {
    const raw = await callUpstream(
      {
        lane: 'epsilon',
        url: `${ctx.upstreamUrl('epsilon')}/user/subscription`,
        headers: { authorization: `Bearer ${key}` },
        credentials: [key],
        timeoutMs: SUBSCRIPTION_TIMEOUT_MS,
        signal,
      },
      (response) => readJson('epsilon', response, z.unknown(), 1024 * 1024),
    );
    const subscription = subscriptionSchema.parse(raw);
    const meter = chargeMeter(raw);
    const credits =
      (subscription.trainingStepsLeft?.fixedTrainingStepsLeft ?? 0) + (subscription.trainingStepsLeft?.purchasedTrainingSteps ?? 0);
    return subscription.active && meter !== undefined && (meter.percent <= 0 || meter.isNegative) && credits <= 0;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return undefined;
  }
}

/** The code of a 402 on `model` (our id). */
export async function paymentRequired(ctx: LaneEnv, key: string, model: string, error: UpstreamError, signal: AbortSignal) {
  const said = error.vendorMessage ? ` (${error.vendorMessage})` : '';
  if (isVersion5(model) && (await usageExhausted(ctx, key, signal))) {
    return laneError(
      error,
      'EPSILON_USAGE_EXHAUSTED',
      `epsilon: the subscription is active but its charge meter and credits are empty${said}; wait for the meter to recharge or buy credits.`,
      false,
    );
  }
  return laneError(error, 'EPSILON_SUBSCRIPTION_REQUIRED', `epsilon needs an active subscription for this${said}.`, false);
}
