import { ServiceError } from '../../common/errors.js';
import type { LaneId } from '../api/index.js';
import type { KeyVerdict } from '../api/keys.js';
import type { KeyNamespace } from '../auth/key-namespaces.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { listAlphaModels } from '../lanes/alpha/status.js';
import { exchangeOnce } from '../lanes/beta-api/access-token.js';
import { parseServiceAccount } from '../lanes/beta-api/credentials.js';
import { parseBetaError } from '../lanes/beta-api/errors.js';
import { callUpstream, UpstreamError, type VendorError } from '../upstream/index.js';

// The live check of a key, per namespace, declared as data: which lane's
// upstream it calls, the free endpoint that answers whether the vendor takes
// the key (the key-check endpoints the lane contracts name), what counts as a
// refusal, and the vendor's key form. A check answers a verdict — valid,
// invalid, or unchecked when the vendor could not say (unreachable, a 5xx, a
// rate limit, no check endpoint) — never "configured".

export interface KeyCheck {
  /** The lane whose upstream the check calls (base URL, errors named after it). */
  readonly lane: LaneId;
  /** The vendor's key form, enforced on save when the lane talks to the vendor itself (its default URL). */
  readonly form?: { readonly pattern: RegExp; readonly description: string };
  /** One call with the key; throws what the call threw. Absent: the vendor has no free check. */
  readonly verify?: (ctx: StudioContext, value: string, options: { timeoutMs: number; signal?: AbortSignal }) => Promise<void>;
  /** Whether a failed call means the key itself was refused (default: 401 or 403). */
  readonly refused?: (error: UpstreamError) => boolean;
}

/** A GET the vendor answers 2xx for a good key (nothing is billed). */
const keyedGet =
  (lane: LaneId, path: string, headers: (key: string) => Record<string, string>, parseError?: (body: string, status: number) => VendorError): KeyCheck['verify'] =>
  (ctx, value, options) =>
    callUpstream(
      { lane, url: `${ctx.upstreamUrl(lane)}${path}`, headers: { accept: 'application/json', ...headers(value) }, credentials: [value], timeoutMs: options.timeoutMs, signal: options.signal, parseError },
      async (response) => void (await response.body?.cancel()),
    );
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The service account's one token exchange; a key file the library cannot sign with is refused like a bad key. */
async function verifyServiceAccount(ctx: StudioContext, value: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
  const account = parseServiceAccount(value, 'the service account');
  try {
    await exchangeOnce(ctx, account, options);
  } catch (error) {
    if (error instanceof UpstreamError || error instanceof ServiceError || options.signal?.aborted) throw error;
    throw new ServiceError('AUTH_API_KEY_INVALID', 'The service account\'s private_key cannot sign a token request: paste the key file as downloaded.', { details: { field: 'private_key' } });
  }
}

const isRefusal = (error: UpstreamError) => error.status === 401 || error.status === 403;

export const KEY_CHECKS: Readonly<Record<KeyNamespace, KeyCheck>> = {
  // Responses contract: the API's model list with the bearer key.
  omni: { lane: 'api', form: { pattern: /^sk-[A-Za-z0-9_-]{20,}$/, description: 'starts with sk-' }, verify: keyedGet('api', '/models', bearer) },
  // Alpha status probe contract §2: the model list with the bearer; an unknown key is a 400 that says so (contract §7).
  alpha: {
    lane: 'alpha-api',
    form: { pattern: /^xai-[A-Za-z0-9_-]{20,}$/, description: 'starts with xai-' },
    verify: async (ctx, value, options) => void (await listAlphaModels(ctx, value, { lane: 'alpha-api', ...options })),
    refused: (error) => isRefusal(error) || (error.status === 400 && /api[ _]?key/i.test(`${error.vendorCode ?? ''} ${error.vendorMessage ?? ''}`)),
  },
  // :generateContent contract §1: the key surface's model list; a bad key is a 400 whose reason says so.
  beta: {
    lane: 'beta-api',
    form: { pattern: /^AIza[0-9A-Za-z_-]{35}$/, description: 'is AIza followed by 35 letters, digits, - or _' },
    verify: keyedGet('beta-api', '/v1beta/models', (key) => ({ 'x-goog-api-key': key }), parseBetaError),
    refused: (error) => isRefusal(error) || (error.vendorType ?? '').startsWith('API_KEY_'),
  },
  // Contract §8: a real JWT-bearer exchange; any 4xx of the token endpoint refuses the account.
  cloud: { lane: 'beta-api', verify: verifyServiceAccount, refused: (error) => (error.status ?? 500) < 500 && error.status !== 429 },
  // gamma contract §1: `GET /models`, any 2xx = valid.
  gamma: { lane: 'gamma', verify: keyedGet('gamma', '/models', bearer) },
  // delta has no free endpoint (its one route generates and bills): no live check.
  delta: { lane: 'delta' },
  // epsilon contract §1: `GET /user/data`, the free key check.
  epsilon: { lane: 'epsilon', verify: keyedGet('epsilon', '/user/data', bearer) },
};

export interface CheckOutcome {
  readonly verdict: KeyVerdict;
  /** Why: the vendor's refusal, or why there is no verdict. */
  readonly reason?: string;
  /** The answer a save gives when the verdict is not `valid`. */
  readonly error?: ServiceError;
}

/** Whether the lane talks to the vendor itself (its default URL), where the vendor's key form applies. */
export function talksToVendor(ctx: StudioContext, check: KeyCheck): boolean {
  const fallback = LANES[check.lane].endpoints.base?.default?.replace(/\/+$/, '');
  return fallback !== undefined && ctx.configuredUpstreamUrl(check.lane) === fallback;
}

/** Checks `value` against the vendor now, within `timeoutMs`. */
export async function checkKey(ctx: StudioContext, namespace: KeyNamespace, value: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CheckOutcome> {
  const check = KEY_CHECKS[namespace];
  if (!check.verify) return { verdict: 'unchecked', reason: `The ${namespace} vendor has no endpoint to check a key without billing; its first generation will tell.` };
  try {
    await check.verify(ctx, value, options);
    return { verdict: 'valid' };
  } catch (error) {
    if (error instanceof ServiceError) {
      const masked = error.withSecretsMasked([value]);
      return { verdict: masked.code === 'AUTH_API_KEY_INVALID' ? 'invalid' : 'unchecked', reason: masked.message, error: masked };
    }
    if (!(error instanceof UpstreamError)) throw error;
    if (error.failure === 'http' && (check.refused ?? isRefusal)(error)) {
      const refusal = error.as('AUTH_API_KEY_INVALID', `The ${namespace} vendor refused the key (${error.status}${error.vendorMessage ? `: ${error.vendorMessage}` : ''}).`);
      return { verdict: 'invalid', reason: refusal.message, error: refusal };
    }
    const failure = error.toServiceError();
    return { verdict: 'unchecked', reason: `The ${namespace} vendor could not check the key: ${failure.message}`, error: failure };
  }
}
