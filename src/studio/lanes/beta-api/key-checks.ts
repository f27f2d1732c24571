import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { maskKey } from '../../keys/mask.js';
import { UpstreamError } from '../../upstream/index.js';
import { isRefusal, keyedGet } from '../key-check.js';
import type { KeyCheck } from '../types.js';
import { exchangeOnce } from './access-token.js';
import { parseServiceAccount } from './credentials.js';
import { parseBetaError } from './errors.js';

// The live checks of the beta-api lane's two credentials.

/** :generateContent contract §1: the key surface's model list; a bad key is a 400 whose reason says so. */
/** `GET /v1beta/models` answers the model list (contract §1). */
const BETA_MODEL_LIST = lazy(() => z.object({ models: z.array(z.unknown()) }));

export const BETA_KEY_CHECK: KeyCheck = {
  form: { pattern: /^AIza[0-9A-Za-z_-]{35}$/, description: 'is AIza followed by 35 letters, digits, - or _' },
  verify: keyedGet('beta-api', '/v1beta/models', (key) => ({ 'x-goog-api-key': key }), BETA_MODEL_LIST, parseBetaError),
  refused: (error) => isRefusal(error) || (error.vendorType ?? '').startsWith('API_KEY_'),
};

/** The service account's one token exchange; a key file the library cannot sign with is refused like a bad key. */
async function verifyServiceAccount(ctx: LaneEnv, value: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
  const account = parseServiceAccount(value, 'the service account');
  try {
    await exchangeOnce(ctx, account, options);
  } catch (error) {
    if (error instanceof UpstreamError || error instanceof ServiceError || options.signal?.aborted) throw error;
    throw new ServiceError(
      'AUTH_API_KEY_INVALID',
      "The service account's private_key cannot sign a token request: paste the key file as downloaded.",
      { details: { field: 'private_key' } },
    );
  }
}

/** Contract §8: a real JWT-bearer exchange; any 4xx of the token endpoint refuses the account. */
export const CLOUD_KEY_CHECK: KeyCheck = {
  parse: (value, source) => void parseServiceAccount(value, source),
  verify: verifyServiceAccount,
  refused: (error) => (error.status ?? 500) < 500 && error.status !== 429,
  // A service account is shown by its project, its email and its masked key id, never its private key.
  describe: (value) => {
    try {
      const account = parseServiceAccount(value, 'the service account');
      return {
        masked: account.private_key_id ? maskKey(account.private_key_id) : null,
        projectId: account.project_id,
        clientEmail: account.client_email,
      };
    } catch {
      return { masked: null };
    }
  },
};
