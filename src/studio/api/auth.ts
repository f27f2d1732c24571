import { z } from 'zod';
import { lazy } from '../../common/lazy.js';

// Account switching (spec: Device-code flow, `POST /api/auth/switch`,
// `GET /api/auth/switch/:sessionId`) and the chat session's status
// (`GET /api/oauth/status`).

/** Accounts a device-code sign-in can switch: the `alpha` lane's session, and the chat session of `oauth`. */
export const SWITCH_PROVIDERS = ['alpha', 'oauth'] as const;
export type SwitchProvider = (typeof SWITCH_PROVIDERS)[number];
/** Only device-code sign-in is built (the source's `browser` flow is not). */
export const SWITCH_FLOWS = ['device'] as const;
/** The wire variant each provider's issuer speaks (device-code-grant.md: RFC 8628, or §6). */
export const SWITCH_VARIANTS = { alpha: 'rfc8628', oauth: 'chat-device-auth' } as const satisfies Record<SwitchProvider, string>;
export const SWITCH_STATES = ['pending', 'complete', 'error', 'expired'] as const;

export const switchRequest = lazy(() => z.object({ provider: z.enum(SWITCH_PROVIDERS), flow: z.enum(SWITCH_FLOWS).optional() }).strict());
/** `POST /api/auth/switch`. */
export type SwitchRequest = z.input<typeof switchRequest>;

export const switchStarted = lazy(() =>
  z.object({
    sessionId: z.string(),
    provider: z.enum(SWITCH_PROVIDERS),
    flow: z.enum(SWITCH_FLOWS),
    variant: z.string(),
    userCode: z.string(),
    /** The page to open (with the code in it when the issuer gives one). */
    verificationUrl: z.string(),
    /** Seconds the code lives. */
    expiresIn: z.number(),
    expiresAt: z.string(),
    /** Seconds between the studio's polls of the issuer. */
    interval: z.number(),
  }),
);
export type SwitchStarted = z.infer<typeof switchStarted>;

export const switchStatus = lazy(() =>
  z.object({
    sessionId: z.string(),
    provider: z.enum(SWITCH_PROVIDERS),
    flow: z.enum(SWITCH_FLOWS),
    status: z.enum(SWITCH_STATES),
    userCode: z.string(),
    verificationUrl: z.string(),
    expiresAt: z.string(),
    /** `complete`: the account now signed in (when the issuer says). */
    email: z.string().optional(),
    /** `error`: what went wrong, in the error table's codes. */
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
);
export type SwitchStatus = z.infer<typeof switchStatus>;

/** `DELETE /api/auth/switch/:sessionId`: whether a waiting sign-in was stopped (false: it had already ended). */
export const switchCancelled = lazy(() => z.object({ sessionId: z.string(), cancelled: z.boolean(), status: z.enum(SWITCH_STATES) }));
/** `DELETE /api/auth/switch/:sessionId`. */
export type SwitchCancelled = z.infer<typeof switchCancelled>;

/** `GET /api/oauth/status`: the chat session, never its tokens. */
export const oauthStatusBody = lazy(() =>
  z.object({
    present: z.boolean(),
    /** The session file the `oauth` lane reads. */
    file: z.string(),
    account: z.object({ email: z.string().nullable(), plan: z.string().nullable(), accountId: z.string().nullable() }).nullable(),
    /** ISO expiry of the access token (null when it says none). */
    expiresAt: z.string().nullable(),
    lastRefresh: z.string().nullable(),
    /** The next call refreshes first (the token expires within a minute, or the session is over 8 days old). */
    needsRefresh: z.boolean(),
    /** A refresh token is there. */
    refreshable: z.boolean(),
    /** Why there is no usable session. */
    reason: z.string().optional(),
  }),
);
export type OauthStatusBody = z.infer<typeof oauthStatusBody>;
