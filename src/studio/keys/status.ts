import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import {
  keysStatusBody,
  MANAGED_KEY_NAMESPACES,
  OTHER_KEY_NAMESPACES,
  type KeyStatus,
  type KeysStatusBody,
  type KeyVerdict,
} from '../api/keys.js';
import { envKey } from '../auth/credentials.js';
import { KEY_NAMESPACES, type KeyNamespace } from '../auth/key-namespaces.js';
import { LANE_MODULES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { checkKey, KEY_CHECKS, type CheckOutcome } from './checks.js';
import { maskKey } from './mask.js';

// `GET /api/keys/status`: each key, masked, with the verdict of a live check.
// Verdicts are remembered per studio and per key value (by a hash, in memory):
// a key is checked the first time it is seen, again on `?verify=1`, and a
// change of the key (a save, another environment) starts it over. Checks of
// the same key at once share one call.

/** Each status check gets this long ("a short time budget each"). */
export const STATUS_CHECK_TIMEOUT_MS = 5000;

interface Remembered {
  readonly fingerprint: string;
  readonly verdict: KeyVerdict;
  readonly reason?: string;
  /** The last time a check got a verdict (valid or invalid) for this key. */
  readonly verdictAt?: string;
  readonly lastVerdict?: 'valid' | 'invalid';
}

const remembered = new WeakMap<StudioContext, Map<string, Remembered>>();
const inFlight = new WeakMap<StudioContext, Map<string, Promise<Remembered>>>();

const fingerprintOf = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 24);

function memory<T>(map: WeakMap<StudioContext, Map<string, T>>, ctx: StudioContext): Map<string, T> {
  let entries = map.get(ctx);
  if (!entries) map.set(ctx, (entries = new Map()));
  return entries;
}

/** Remembers what a check of `value` said (a save records its own check here too). */
export function rememberCheck(
  ctx: StudioContext,
  namespace: KeyNamespace,
  value: string,
  outcome: CheckOutcome,
  at = new Date(),
): Remembered {
  const entries = memory(remembered, ctx);
  const fingerprint = fingerprintOf(value);
  const before = entries.get(namespace);
  const same = before?.fingerprint === fingerprint ? before : undefined;
  const entry: Remembered =
    outcome.verdict === 'unchecked'
      ? {
          fingerprint,
          verdict: 'unchecked',
          reason: outcome.reason,
          verdictAt: same?.verdictAt,
          lastVerdict: same?.verdict === 'unchecked' ? same.lastVerdict : same?.verdict,
        }
      : { fingerprint, verdict: outcome.verdict, reason: outcome.reason, verdictAt: at.toISOString() };
  entries.set(namespace, entry);
  return entry;
}

/** Checks the key now, once for every caller asking about the same value at the same time. */
function checkNow(ctx: StudioContext, namespace: KeyNamespace, value: string): Promise<Remembered> {
  const pending = memory(inFlight, ctx);
  const id = `${namespace}:${fingerprintOf(value)}`;
  let check = pending.get(id);
  if (!check) {
    check = checkKey(ctx, namespace, value, { timeoutMs: STATUS_CHECK_TIMEOUT_MS })
      .then((outcome) => rememberCheck(ctx, namespace, value, outcome))
      .finally(() => pending.delete(id));
    pending.set(id, check);
  }
  return check;
}

/** One namespace's status; checks the key when asked to, or when this value was never checked. */
export async function keyStatus(ctx: StudioContext, namespace: KeyNamespace, options: { verify?: boolean } = {}): Promise<KeyStatus> {
  const spec = KEY_NAMESPACES[namespace];
  const key = ctx.key(namespace);
  if (!key)
    return {
      env: spec.env,
      set: false,
      source: 'none',
      masked: null,
      valid: 'unchecked',
      checkedAt: null,
      reason: `Not set: set ${spec.env} or save one.`,
    };
  const known = remembered.get(ctx)?.get(namespace);
  const entry = !options.verify && known?.fingerprint === fingerprintOf(key.value) ? known : await checkNow(ctx, namespace, key.value);
  const status: KeyStatus = {
    env: spec.env,
    set: true,
    source: key.source,
    masked: maskKey(key.value),
    valid: entry.verdict,
    checkedAt: entry.verdictAt ?? null,
    ...(entry.verdict === 'unchecked' ? { lastVerdict: entry.lastVerdict ?? null } : {}),
    ...(entry.reason ? { reason: entry.reason } : {}),
  };
  // A key the vendor's form describes better than its ends (a service account) is shown that way.
  return { ...status, ...KEY_CHECKS[namespace].describe?.(key.value) };
}

/** The contract's check that the namespaces and the lanes' additions make its answer, no more, no less. */
const isKeysStatusBody = (body: unknown): body is KeysStatusBody => keysStatusBody.strict().safeParse(body).success;

/** Every namespace's status, checks in parallel: the managed ones at the top, the others under `otherKeys`, plus what the lanes add (beta-api's auth mode). */
export async function keysStatus(ctx: StudioContext, options: { verify?: boolean } = {}): Promise<KeysStatusBody> {
  const statuses = async (namespaces: readonly KeyNamespace[]) =>
    Object.fromEntries(
      await Promise.all(namespaces.map(async (namespace) => [namespace, await keyStatus(ctx, namespace, options)] as const)),
    );
  const [managed, otherKeys] = await Promise.all([statuses(MANAGED_KEY_NAMESPACES), statuses(OTHER_KEY_NAMESPACES)]);
  const body: unknown = Object.assign({ ...managed, otherKeys }, ...LANE_MODULES.map((lane) => lane.keyStatus?.(ctx)));
  if (!isKeysStatusBody(body))
    throw new ServiceError('INTERNAL_ERROR', 'The key namespaces and the lanes do not make the key status the contract describes.');
  return body;
}

/** Whether the environment sets this namespace's key (then it cannot be changed through the API). */
export const isEnvironmentKey = (ctx: StudioContext, namespace: KeyNamespace): boolean => envKey(namespace, ctx.env) !== undefined;
