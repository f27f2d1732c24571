import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import type { QuotaResult } from '../../api/quota.js';
import type { LaneEnv } from '../env.js';
import { sessionTarget } from './call.js';
import { freshAlphaSession, isLoginRequired } from './session.js';
import { readAlphaSession, type AlphaSession } from './session-file.js';
import { callUpstream, readJson, type UpstreamError } from '../../upstream/index.js';
import { clampPercent, isoTime, notSignedIn, probeFailed } from '../../quota/outcome.js';

// alpha's bar (contract §1.2) from the vendor's billing proxy, with the OAuth
// session the `alpha` lane uses (refreshed first when it is about to expire).
// Newer accounts are on weekly credits: `?format=credits` answers a weekly
// period and a percent. Others have the legacy monthly meter in cents, read
// with the user's email in parallel; it gives the `billing` dollars too.
// Without a session no call is made.

const PROVIDER = 'alpha';
/** Contract: 8 s for the billing routes, 5 s for the user. */
const BILLING_TIMEOUT_MS = 8000;
const USER_TIMEOUT_MS = 5000;
/** The legacy plan names, by monthly limit in cents (contract: ≥150 000 top tier, ≥15 000 standard). */
const PLAN_TIERS: readonly (readonly [number, string])[] = [
  [150_000, 'top'],
  [15_000, 'standard'],
];

const creditsAnswer = lazy(() =>
  z.looseObject({
    config: z.looseObject({
      currentPeriod: z.looseObject({ type: z.string(), end: z.string().nullish() }).nullish(),
      creditUsagePercent: z.number().nullish(),
      subscriptionName: z.string().nullish(),
    }),
  }),
);
const billingAnswer = lazy(() =>
  z.looseObject({
    config: z.looseObject({
      monthlyLimit: z.looseObject({ val: z.number() }),
      used: z.looseObject({ val: z.number() }),
      billingPeriodEnd: z.string().nullish(),
    }),
  }),
);
const userAnswer = lazy(() => z.looseObject({ email: z.string().nullish() }));

function get<T>(
  ctx: LaneEnv,
  session: AlphaSession,
  path: string,
  schema: z.ZodType<T>,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<T> {
  return callUpstream(
    {
      lane: PROVIDER,
      url: `${ctx.upstreamUrl('alpha', 'billing')}${path}`,
      headers: { authorization: `Bearer ${session.accessToken}`, accept: 'application/json', ...headers },
      credentials: [session.accessToken],
      timeoutMs,
    },
    (response) => readJson(PROVIDER, response, schema, 1024 * 1024),
  );
}

/** The weekly credits view, when the account is on it (undefined otherwise, or when it cannot be read). */
async function weekly(ctx: LaneEnv, session: AlphaSession): Promise<QuotaResult | undefined> {
  if (!session.accountId) return undefined;
  const answer = await get(ctx, session, '/v1/billing?format=credits', creditsAnswer, BILLING_TIMEOUT_MS, {
    'x-xai-token-auth': 'xai-grok-cli',
    'x-authenticateresponse': 'authenticate-response',
    'x-userid': session.accountId,
    'x-grok-client-version': ctx.version,
    'x-grok-client-mode': 'headless',
  }).catch(() => undefined);
  const period = answer?.config.currentPeriod;
  const end = isoTime(period?.end);
  if (!answer || period?.type !== 'USAGE_PERIOD_TYPE_WEEKLY' || !end) return undefined;
  return {
    provider: PROVIDER,
    authenticated: true,
    account: { email: session.email ?? null, plan: answer.config.subscriptionName ?? null },
    windows: [{ label: 'weekly', percent: clampPercent(answer.config.creditUsagePercent ?? 0), resetsAt: end }],
  };
}

/** The legacy monthly meter (integer cents) and the account's email. */
async function monthly(ctx: LaneEnv, session: AlphaSession): Promise<QuotaResult> {
  const [billing, user] = await Promise.all([
    get(ctx, session, '/v1/billing', billingAnswer, BILLING_TIMEOUT_MS),
    get(ctx, session, '/v1/user', userAnswer, USER_TIMEOUT_MS).catch((error: UpstreamError) => ({ email: undefined, error })),
  ]);
  const { val: limit } = billing.config.monthlyLimit;
  const { val: used } = billing.config.used;
  const plan = PLAN_TIERS.find(([floor]) => limit >= floor)?.[1] ?? `$${limit / 100} limit`;
  return {
    provider: PROVIDER,
    authenticated: true,
    account: { email: user.email ?? session.email ?? null, plan },
    windows: [
      { label: 'monthly', percent: limit > 0 ? clampPercent((used / limit) * 100) : 0, resetsAt: isoTime(billing.config.billingPeriodEnd) },
    ],
    billing: { usedUsd: used / 100, limitUsd: limit / 100 },
  };
}

export async function alphaQuota(ctx: LaneEnv): Promise<QuotaResult> {
  let session: AlphaSession;
  try {
    if (!readAlphaSession(ctx.sessionFile('alpha')))
      return notSignedIn(PROVIDER, 'No alpha session: run `svc alpha login` (or POST /api/auth/switch {"provider":"alpha"}).');
    session = await freshAlphaSession(sessionTarget(ctx));
  } catch (error) {
    if (isLoginRequired(error)) return notSignedIn(PROVIDER, (error as Error).message);
    return probeFailed(PROVIDER, error, 'alpha sign-in server');
  }
  try {
    return (await weekly(ctx, session)) ?? (await monthly(ctx, session));
  } catch (error) {
    return probeFailed(PROVIDER, error, 'alpha billing proxy');
  }
}
