import { z } from 'zod';
import { lazy } from '../../common/lazy.js';

// The alpha session routes' answers (spec: Health, storage, jobs; contract
// quota-and-status-probes §2–3). GET /api/alpha/status is the spec's probe;
// GET and DELETE /api/alpha/session are ours (what `svc alpha status` and
// `svc alpha logout` use). No answer ever carries a token.

/** The probe's results (spec: "Alpha session probe results"); always HTTP 200. */
export const ALPHA_STATUSES = ['ready', 'no_image_model', 'error', 'offline'] as const;

export const alphaStatusBody = lazy(() =>
  z.object({
    status: z.enum(ALPHA_STATUSES),
    /** ready, no_image_model: every model id the vendor listed. */
    models: z.array(z.string()).optional(),
    /** error: `HTTP <code>` or the refresh's failure; offline: `login_required` when there is no usable session. */
    reason: z.string().optional(),
  }),
);
export type AlphaStatusBody = z.infer<typeof alphaStatusBody>;

/** GET /api/alpha/session */
export const alphaSessionBody = lazy(() =>
  z.object({
    auth: z.enum(['oauth', 'none']),
    email: z.string().optional(),
    /** When the access token expires (ISO). */
    expiresAt: z.string().optional(),
    /** A refresh token is there: an expired access token is renewed without logging in. */
    refreshable: z.boolean(),
    /** Why a session file that exists cannot be used. */
    problem: z.string().optional(),
  }),
);
export type AlphaSessionBody = z.infer<typeof alphaSessionBody>;

/** DELETE /api/alpha/session (logout): whether there was a session file to remove. */
export const alphaLogoutBody = lazy(() => z.object({ removed: z.boolean(), auth: z.literal('none') }));
export type AlphaLogoutBody = z.infer<typeof alphaLogoutBody>;
