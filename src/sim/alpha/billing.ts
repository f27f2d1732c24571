import { z } from 'zod';
import type { ErrorAnswer, Simulator } from '../harness.js';
import { bearerOf } from './access.js';
import type { AlphaTokens } from './tokens.js';

// The vendor's billing proxy (contract quota-and-status-probes §1.2): the
// legacy monthly meter (`GET /v1/billing`, integer cents), the weekly credits
// view of newer accounts (`?format=credits`) and the user (`GET /v1/user`),
// all for the OAuth session's bearer. The values are the simulator's state:
// each image adds its cost, and tests set them through the control route
// `PUT /__sim/alpha/billing` (read with `GET`). Once `usedCents` reaches
// `limitCents`, the images API refuses with the spend-cap 429.

export interface WeeklyCredits {
  /** Used share of the week's credits, 0-100. */
  readonly percent: number;
  /** ISO end of the current weekly period. */
  readonly end: string;
}

export interface AlphaBilling {
  usedCents: number;
  limitCents: number;
  /** ISO end of the monthly billing period. */
  periodEnd: string;
  /** What `/v1/user` says (null: no email). */
  email: string | null;
  /** Set: the account is on weekly credits (`?format=credits` answers the weekly period). */
  weekly: WeeklyCredits | null;
  /** The plan name the credits view reports. */
  subscriptionName: string;
}

/** The base path of the billing proxy on the simulator's port (the `alpha.billing` endpoint). */
export const BILLING_BASE_PATH = '/billing-proxy';

const endOfMonth = (): string => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0, 23, 59, 59)).toISOString();
};

export function initialBilling(email: string): AlphaBilling {
  return { usedCents: 0, limitCents: 30_000, periodEnd: endOfMonth(), email, weekly: null, subscriptionName: 'Alpha Plus' };
}

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be an ISO date' });

/** `PUT /__sim/alpha/billing`: any subset of the state. */
const billingChange = z
  .object({
    usedCents: z.number().int().min(0).optional(),
    limitCents: z.number().int().min(0).optional(),
    periodEnd: isoDate.optional(),
    email: z.string().nullable().optional(),
    weekly: z
      .object({ percent: z.number().min(0).max(100), end: isoDate })
      .strict()
      .nullable()
      .optional(),
    subscriptionName: z.string().min(1).optional(),
  })
  .strict();

/** Whether the next image is refused for the spend cap. */
export const spendCapReached = (billing: AlphaBilling): boolean => billing.limitCents > 0 && billing.usedCents >= billing.limitCents;

const unauthenticated: ErrorAnswer = { status: 401, body: { code: 'Unauthenticated', error: 'A valid bearer token is required.' } };

export function registerBillingRoutes(simulator: Simulator, billing: AlphaBilling, tokens: AlphaTokens): void {
  simulator.control('GET', '/__sim/alpha/billing', () => ({ status: 200, body: billing }));
  simulator.control('PUT', '/__sim/alpha/billing', ({ body }) => {
    const parsed = billingChange.safeParse(body ?? {});
    if (!parsed.success)
      return { status: 400, body: { error: { code: 'invalid_billing', message: parsed.error.issues[0]?.message ?? 'invalid' } } };
    Object.assign(billing, Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined)));
    return { status: 200, body: billing };
  });

  const caller = (authorization: string | undefined) => {
    const token = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim())?.[1] : undefined;
    if (!token) return undefined;
    const check = tokens.checkAccess(token);
    return check.ok ? check.claims : undefined;
  };

  simulator.route('GET', `${BILLING_BASE_PATH}/v1/billing`, (request, response) => {
    const claims = caller(request.header('authorization'));
    if (!claims || !bearerOf(request)) return response.json(unauthenticated.status, unauthenticated.body);
    if (request.query.get('format') === 'credits') {
      if (billing.weekly && request.header('x-userid') !== claims.sub)
        return response.json(400, { code: 'Client specified an invalid argument', error: "x-userid must name the token's user." });
      const period = billing.weekly
        ? { type: 'USAGE_PERIOD_TYPE_WEEKLY', end: billing.weekly.end }
        : { type: 'USAGE_PERIOD_TYPE_MONTHLY', end: billing.periodEnd };
      const percent = billing.weekly
        ? billing.weekly.percent
        : billing.limitCents
          ? Math.round((billing.usedCents / billing.limitCents) * 100)
          : 0;
      return response.json(200, {
        config: { currentPeriod: period, creditUsagePercent: percent, subscriptionName: billing.subscriptionName },
      });
    }
    return response.json(200, {
      config: { monthlyLimit: { val: billing.limitCents }, used: { val: billing.usedCents }, billingPeriodEnd: billing.periodEnd },
    });
  });

  simulator.route('GET', `${BILLING_BASE_PATH}/v1/user`, (request, response) => {
    const claims = caller(request.header('authorization'));
    if (!claims) return response.json(unauthenticated.status, unauthenticated.body);
    return response.json(200, { userId: claims.sub, email: billing.email, teamId: claims.team_id });
  });
}
