import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { KEY_NAMESPACES, type KeyNamespace } from '../auth/key-namespaces.js';

// Keys: the save bodies of `PUT /api/keys/:provider` and the answers of
// `GET /api/keys/status`, `PUT` and `DELETE` (spec: Key status, Key save bodies).

/** The spec's four namespaces: they have key routes and are the entries of the status answer. */
export const MANAGED_KEY_NAMESPACES = (Object.keys(KEY_NAMESPACES) as KeyNamespace[]).filter(
  (namespace) => KEY_NAMESPACES[namespace].managed,
);
/** The other lanes' keys (environment or config.json): reported under `otherKeys`, not saved through the API. */
export const OTHER_KEY_NAMESPACES = (Object.keys(KEY_NAMESPACES) as KeyNamespace[]).filter(
  (namespace) => !KEY_NAMESPACES[namespace].managed,
);
/** Namespaces saved with `{ apiKey }` (cloud takes `{ serviceAccountJson }`). */
export const API_KEY_NAMESPACES = ['omni', 'alpha', 'beta'] as const;
export type ApiKeyNamespace = (typeof API_KEY_NAMESPACES)[number];

/** Bounds of what a save accepts, declared once (validation and the docs read them). */
export const KEY_LIMITS = { apiKeyMinChars: 8, apiKeyMaxChars: 512, serviceAccountMaxBytes: 16 * 1024 } as const;

/** An API key as saved: trimmed, printable ASCII without spaces, within the bounds. */
export const keySaveRequest = lazy(() =>
  z
    .object({
      apiKey: z
        .string()
        .trim()
        .min(KEY_LIMITS.apiKeyMinChars)
        .max(KEY_LIMITS.apiKeyMaxChars)
        .regex(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII without spaces or line breaks' }),
    })
    .strict(),
);
/** `PUT /api/keys/omni|alpha|beta`. */
export type KeySaveRequest = z.input<typeof keySaveRequest>;

export const cloudSaveRequest = lazy(() =>
  z
    .object({
      serviceAccountJson: z
        .string()
        .trim()
        .min(2)
        .max(KEY_LIMITS.serviceAccountMaxBytes, { message: `must be at most ${KEY_LIMITS.serviceAccountMaxBytes} characters` }),
    })
    .strict(),
);
/** `PUT /api/keys/cloud`. */
export type CloudKeySaveRequest = z.input<typeof cloudSaveRequest>;

export const KEY_SOURCES = ['env', 'config', 'demo', 'none'] as const;
export const KEY_VERDICTS = ['valid', 'invalid', 'unchecked'] as const;
export type KeyVerdict = (typeof KEY_VERDICTS)[number];

/** One namespace's key, never the key itself. */
export const keyStatus = lazy(() =>
  z.object({
    /** The environment variable that sets it (and, when set, locks it). */
    env: z.string(),
    set: z.boolean(),
    /** Where the key in force comes from: the environment, the config file, the demo's placeholder, or nowhere. */
    source: z.enum(KEY_SOURCES),
    /** A few characters of each end (`sk-p…Xy12`); for `cloud` the key file's masked `private_key_id`. */
    masked: z.string().nullable(),
    /** The vendor's answer to a live check of this key: valid, invalid, or unchecked (no verdict this time). */
    valid: z.enum(KEY_VERDICTS),
    /** When the verdict was reached; for `unchecked` when the key last got one (null: never). */
    checkedAt: z.string().nullable(),
    /** `unchecked`: the verdict of that last check, if any. */
    lastVerdict: z.enum(['valid', 'invalid']).nullable().optional(),
    /** Why the verdict is what it is (a refusal's words, the vendor unreachable, no check endpoint). */
    reason: z.string().optional(),
    /** `cloud`: the service account (never its private key). */
    projectId: z.string().optional(),
    clientEmail: z.string().optional(),
  }),
);
export type KeyStatus = z.infer<typeof keyStatus>;

export const BETA_AUTH_MODES = ['apikey', 'cloud'] as const;

export const keysStatusBody = lazy(() =>
  z.object({
    omni: keyStatus,
    alpha: keyStatus,
    beta: keyStatus,
    cloud: keyStatus,
    /** gamma, delta, epsilon: set by the environment or config.json `keys`, checked the same way. */
    otherKeys: z.object({ gamma: keyStatus, delta: keyStatus, epsilon: keyStatus }),
    /** The beta-api lane's credential: the saved mode (`betaAuthMode`) and the one in force. */
    betaAuthMode: z.object({ saved: z.enum(BETA_AUTH_MODES).nullable(), effective: z.enum(BETA_AUTH_MODES).nullable() }),
  }),
);
export type KeysStatusBody = z.infer<typeof keysStatusBody>;

/** `PUT` and `DELETE` answer the namespace's new status; `DELETE` says whether a saved key went. */
export const keyChangeBody = lazy(() => keyStatus.extend({ provider: z.string(), removed: z.boolean().optional() }));
export type KeyChangeBody = z.infer<typeof keyChangeBody>;
