import { ServiceError } from '../errors.js';
import type { LaneId } from '../api/index.js';
import type { KeyVerdict } from '../api/keys.js';
import { KEY_NAMESPACES, type KeyNamespace } from '../auth/key-namespaces.js';
import { LANE_MODULES, LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { isRefusal } from '../lanes/key-check.js';
import type { KeyCheck } from '../lanes/types.js';
import { UpstreamError } from '../upstream/index.js';

// The live check of a key, per namespace: each lane declares the checks of
// its credential's namespaces (`keyChecks` of its module); here they are
// gathered by namespace and run. A check answers a verdict — valid, invalid,
// or unchecked when the vendor could not say (unreachable, a 5xx, a rate
// limit, no check endpoint) — never "configured".

export interface NamespaceCheck extends KeyCheck {
  /** The lane whose upstream the check calls (base URL, errors named after it). */
  readonly lane: LaneId;
}

/** Each namespace's check, from the lane whose credential it is (every key of a lane's credential has one). */
function gatherChecks(): Readonly<Record<KeyNamespace, NamespaceCheck>> {
  const checks = new Map<KeyNamespace, NamespaceCheck>();
  for (const lane of LANE_MODULES) {
    if (lane.credential.kind !== 'key') continue;
    for (const namespace of lane.credential.namespaces) {
      const check = lane.keyChecks?.[namespace];
      if (!check) throw new Error(`The ${lane.id} lane declares no key check for its ${namespace} key.`);
      if (checks.has(namespace)) throw new Error(`The ${namespace} key is the credential of two lanes.`);
      checks.set(namespace, { lane: lane.id, ...check });
    }
  }
  const namespaces = Object.keys(KEY_NAMESPACES) as KeyNamespace[];
  const unclaimed = namespaces.filter((namespace) => !checks.has(namespace));
  if (unclaimed.length) throw new Error(`No lane has the ${unclaimed.join(', ')} key as its credential.`);
  return Object.fromEntries(checks) as Record<KeyNamespace, NamespaceCheck>;
}

export const KEY_CHECKS = gatherChecks();

export interface CheckOutcome {
  readonly verdict: KeyVerdict;
  /** Why: the vendor's refusal, or why there is no verdict. */
  readonly reason?: string;
  /** The answer a save gives when the verdict is not `valid`. */
  readonly error?: ServiceError;
}

/** Whether the lane talks to the vendor itself (its default URL), where the vendor's key form applies. */
export function talksToVendor(ctx: StudioContext, check: NamespaceCheck): boolean {
  const fallback = LANES[check.lane].endpoints.base?.default?.replace(/\/+$/, '');
  return fallback !== undefined && ctx.configuredUpstreamUrl(check.lane) === fallback;
}

/** Checks `value` against the vendor now, within `timeoutMs`. */
export async function checkKey(
  ctx: StudioContext,
  namespace: KeyNamespace,
  value: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<CheckOutcome> {
  const check = KEY_CHECKS[namespace];
  if (!check.verify)
    return {
      verdict: 'unchecked',
      reason: `The ${namespace} vendor has no endpoint to check a key without billing; its first generation will tell.`,
    };
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
      const refusal = error.as(
        'AUTH_API_KEY_INVALID',
        `The ${namespace} vendor refused the key (${error.status}${error.vendorMessage ? `: ${error.vendorMessage}` : ''}).`,
      );
      return { verdict: 'invalid', reason: refusal.message, error: refusal };
    }
    const failure = error.toServiceError();
    return { verdict: 'unchecked', reason: `The ${namespace} vendor could not check the key: ${failure.message}`, error: failure };
  }
}
