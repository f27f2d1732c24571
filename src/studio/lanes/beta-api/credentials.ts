import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';

// Which credential a beta-api call uses (spec: Beta lane details 3): the API
// key (`BETA_API_KEY`, or `keys.beta` in config.json) or a service account
// (`CLOUD_SERVICE_ACCOUNT_JSON`, or `keys.cloud`), the `cloud` mode. With both
// configured the last saved mode wins (config.json `betaAuthMode`); with both
// and no saved mode, `cloud`.

export type BetaAuthMode = 'apikey' | 'cloud';

/** The fields of a service-account key file the cloud mode needs (contract §8). */
const serviceAccountSchema = lazy(() =>
  z.object({
    type: z.literal('service_account'),
    project_id: z.string().min(1),
    private_key: z.string().includes('PRIVATE KEY'),
    client_email: z.string().min(3),
    private_key_id: z.string().optional(),
    token_uri: z.url().optional(),
  }),
);
export type ServiceAccount = z.infer<typeof serviceAccountSchema>;

export type BetaCredential =
  { readonly mode: 'apikey'; readonly key: string } | { readonly mode: 'cloud'; readonly account: ServiceAccount };

/**
 * A service-account JSON as the user gave it. Its text never goes into an error:
 * only the name of the field that is wrong.
 */
export function parseServiceAccount(text: string, source: string): ServiceAccount {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceError('AUTH_API_KEY_INVALID', `The service account (${source}) is not JSON: paste the key file's whole content.`, {
      details: { lane: 'beta-api', mode: 'cloud' },
    });
  }
  const parsed = serviceAccountSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.map(String).join('.') || '(root)';
  throw new ServiceError(
    'AUTH_API_KEY_INVALID',
    `The service account (${source}) is not a service-account key file: "${field}" is missing or wrong.`,
    {
      details: { lane: 'beta-api', mode: 'cloud', field },
    },
  );
}

/** The saved mode (config.json `betaAuthMode`) and the one in force: with both configured the saved one, and without one the service account. */
export function betaAuthModes(ctx: LaneEnv): { saved: BetaAuthMode | null; effective: BetaAuthMode | null } {
  const saved = ctx.keyStore.betaAuthMode() ?? null;
  const key = ctx.key('beta');
  const account = ctx.key('cloud');
  const effective = key && (!account || saved === 'apikey') ? 'apikey' : account ? 'cloud' : null;
  return { saved, effective };
}

/** The mode in force and its credential; BETA_API_KEY_MISSING when neither is configured. */
export function betaCredential(ctx: LaneEnv): BetaCredential {
  const { effective } = betaAuthModes(ctx);
  const key = ctx.key('beta');
  if (effective === 'apikey' && key) return { mode: 'apikey', key: key.value };
  const account = ctx.key('cloud');
  if (!account) {
    throw new ServiceError(
      'BETA_API_KEY_MISSING',
      'beta-api needs BETA_API_KEY or CLOUD_SERVICE_ACCOUNT_JSON: set one in the environment or under "keys" in config.json.',
      {
        details: { lane: 'beta-api', env: ['BETA_API_KEY', 'CLOUD_SERVICE_ACCOUNT_JSON'] },
      },
    );
  }
  const source =
    account.source === 'env' ? 'CLOUD_SERVICE_ACCOUNT_JSON' : account.source === 'demo' ? 'the demo' : 'keys.cloud in config.json';
  const parsed = parseServiceAccount(account.value, source);
  // The signing key joins the studio's secrets (the whole file did as a key): a vendor may quote it alone.
  ctx.secrets.add(parsed.private_key);
  return { mode: 'cloud', account: parsed };
}
