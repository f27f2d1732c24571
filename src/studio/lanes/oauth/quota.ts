import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { QuotaResult, QuotaWindow } from '../../api/quota.js';
import type { LaneEnv } from '../env.js';
import { jwtClaims, accountIdClaim } from './jwt.js';
import { usableSession } from './refresh.js';
import { callUpstream, readJson, UpstreamError } from '../../upstream/index.js';
import { clampPercent, isoTime, notSignedIn, probeFailed } from '../../quota/outcome.js';

// The chat OAuth session's bar (contract §1.1): the subscription backend's
// usage route with the session the `oauth` lane uses (refreshed first when it
// is about to expire, as the lane would). Its two windows: the 5-hour one and
// the weekly one.

const PROVIDER = 'oauth';
/** Contract: 8 s. */
const USAGE_TIMEOUT_MS = 8000;

const usageWindow = lazy(() => z.looseObject({ used_percent: z.number(), reset_at: z.number().nullish() }).nullish());
const usageAnswer = lazy(() =>
  z.looseObject({
    email: z.string().nullish(),
    plan_type: z.string().nullish(),
    rate_limit: z.looseObject({ primary_window: usageWindow, secondary_window: usageWindow }).nullish(),
  }),
);

/** The windows the backend reports, by the labels the contract gives them. */
const WINDOWS = [
  ['primary_window', '5h'],
  ['secondary_window', '7d'],
] as const;

export async function chatQuota(ctx: LaneEnv): Promise<QuotaResult> {
  let session;
  try {
    session = await usableSession(ctx);
  } catch (error) {
    if (error instanceof ServiceError && (error.code === 'OAUTH_UNAVAILABLE' || error.code === 'AUTH_CHATGPT_EXPIRED'))
      return notSignedIn(PROVIDER, error.message);
    return probeFailed(PROVIDER, error, 'chat sign-in server');
  }
  const accountId = session.accountId ?? accountIdClaim(session.idToken, session.accessToken);
  const call = (path: string) =>
    callUpstream(
      {
        lane: PROVIDER,
        url: `${ctx.upstreamUrl('oauth')}${path}`,
        headers: {
          authorization: `Bearer ${session.accessToken}`,
          accept: 'application/json',
          ...(accountId ? { 'chatgpt-account-id': accountId } : {}),
        },
        credentials: [session.accessToken],
        timeoutMs: USAGE_TIMEOUT_MS,
      },
      (response) => readJson(PROVIDER, response, usageAnswer, 1024 * 1024),
    );
  let usage: z.infer<typeof usageAnswer>;
  try {
    // Some backends serve the route under /codex only (contract §1.1).
    usage = await call('/wham/usage').catch((error: unknown) => {
      if (error instanceof UpstreamError && error.status === 404) return call('/codex/usage');
      throw error;
    });
  } catch (error) {
    return probeFailed(PROVIDER, error, 'chat usage route');
  }
  const claims = jwtClaims(session.idToken);
  const auth = claims?.['https://api.openai.com/auth'] as Record<string, unknown> | undefined;
  const windows: QuotaWindow[] = [];
  for (const [field, label] of WINDOWS) {
    const window = usage.rate_limit?.[field];
    if (window) windows.push({ label, percent: clampPercent(window.used_percent), resetsAt: isoTime(window.reset_at) });
  }
  return {
    provider: PROVIDER,
    authenticated: true,
    account: {
      email: usage.email ?? (typeof claims?.email === 'string' ? claims.email : null),
      plan: usage.plan_type ?? (typeof auth?.chatgpt_plan_type === 'string' ? auth.chatgpt_plan_type : null),
    },
    windows,
  };
}
