import { createHash } from 'node:crypto';
import { OTHER_KEY_NAMESPACES, type KeyStatus, type KeysStatusBody, type KeyVerdict } from '../api/keys.js';
import { envKey } from '../auth/credentials.js';
import { KEY_NAMESPACES, type KeyNamespace } from '../auth/key-namespaces.js';
import type { StudioContext } from '../context.js';
import { parseServiceAccount } from '../lanes/beta-api/credentials.js';
import { checkKey, type CheckOutcome } from './checks.js';
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
export function rememberCheck(ctx: StudioContext, namespace: KeyNamespace, value: string, outcome: CheckOutcome, at = new Date()): Remembered {
  const entries = memory(remembered, ctx);
  const fingerprint = fingerprintOf(value);
  const before = entries.get(namespace);
  const same = before?.fingerprint === fingerprint ? before : undefined;
  const entry: Remembered =
    outcome.verdict === 'unchecked'
      ? { fingerprint, verdict: 'unchecked', reason: outcome.reason, verdictAt: same?.verdictAt, lastVerdict: same?.verdict === 'unchecked' ? same.lastVerdict : same?.verdict }
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
  if (!key) return { env: spec.env, set: false, source: 'none', masked: null, valid: 'unchecked', checkedAt: null, reason: `Not set: set ${spec.env} or save one.` };
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
  return namespace === 'cloud' ? { ...status, ...serviceAccountFacts(key.value) } : status;
}

/** A service account is shown by its project, its email and its masked key id, never its private key. */
function serviceAccountFacts(value: string): Partial<KeyStatus> {
  try {
    const account = parseServiceAccount(value, 'the service account');
    return { masked: account.private_key_id ? maskKey(account.private_key_id) : null, projectId: account.project_id, clientEmail: account.client_email };
  } catch {
    return { masked: null };
  }
}

/** Every namespace's status, checks in parallel. */
export async function keysStatus(ctx: StudioContext, options: { verify?: boolean } = {}): Promise<KeysStatusBody> {
  const [omni, alpha, beta, cloud, ...others] = await Promise.all(
    (['omni', 'alpha', 'beta', 'cloud', ...OTHER_KEY_NAMESPACES] as KeyNamespace[]).map((namespace) => keyStatus(ctx, namespace, options)),
  );
  const otherKeys = Object.fromEntries(OTHER_KEY_NAMESPACES.map((namespace, index) => [namespace, others[index]])) as KeysStatusBody['otherKeys'];
  return { omni, alpha, beta, cloud, otherKeys, betaAuthMode: betaAuthMode(ctx) };
}

/** The saved beta-api mode and the one in force (spec: with both and no saved mode, cloud). */
function betaAuthMode(ctx: StudioContext): KeysStatusBody['betaAuthMode'] {
  const saved = ctx.keyStore.betaAuthMode() ?? null;
  const key = ctx.key('beta');
  const account = ctx.key('cloud');
  const effective = key && (!account || saved === 'apikey') ? 'apikey' : account ? 'cloud' : null;
  return { saved, effective };
}

/** Whether the environment sets this namespace's key (then it cannot be changed through the API). */
export const isEnvironmentKey = (ctx: StudioContext, namespace: KeyNamespace): boolean => envKey(namespace, ctx.env) !== undefined;
