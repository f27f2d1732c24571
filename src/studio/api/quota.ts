import { z } from 'zod';
import { lazy } from '../../common/lazy.js';

// `GET /api/quota` (spec: Quota; contract quota-and-status-probes §1): one
// usage bar per account the studio signs in with — the chat OAuth session,
// alpha, epsilon — each in the contract's result shape.

/** One bar: how much of a window is used, and when it starts over. */
export const quotaWindow = lazy(() =>
  z.object({
    /** `5h`, `7d` (chat), `monthly` or `weekly` (alpha), `v5-battery` (epsilon). */
    label: z.string(),
    /** Used, 0–100. */
    percent: z.number(),
    /** ISO time the window resets (epsilon: when the meter next gains a percent); null when unknown. */
    resetsAt: z.string().nullable(),
  }),
);
export type QuotaWindow = z.infer<typeof quotaWindow>;

export const quotaResult = lazy(() =>
  z.object({
    /** The lane the bar is for. */
    provider: z.string(),
    account: z.object({ email: z.string().nullable(), plan: z.string().nullable() }).nullable().optional(),
    windows: z.array(quotaWindow),
    /** False: no credential, or the vendor refused it (no call is made without one). */
    authenticated: z.boolean(),
    /** The probe failed (network, a status other than a refusal): the bar is unknown, not empty. */
    error: z.literal(true).optional(),
    /** Why `error` or `authenticated: false` (ours; the contract gives no text). */
    reason: z.string().optional(),
    /** alpha's monthly meter in US dollars. */
    billing: z.object({ usedUsd: z.number(), limitUsd: z.number() }).optional(),
    /** epsilon's subscription (the contract's vendor-named `nai` field, renamed). */
    epsilonAccount: z
      .object({
        active: z.boolean(),
        isNegative: z.boolean(),
        fixedCredits: z.number(),
        purchasedCredits: z.number(),
        meter: z.enum(['charge', 'missing']),
      })
      .optional(),
  }),
);
export type QuotaResult = z.infer<typeof quotaResult>;

export const quotaBody = lazy(() => z.object({ oauth: quotaResult, alpha: quotaResult, epsilon: quotaResult }));
export type QuotaBody = z.infer<typeof quotaBody>;
