import type { GoogleToken, gaxios } from 'google-auth-library';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import type { LaneEnv } from '../env.js';
import { callUpstream, readJson } from '../../upstream/index.js';
import type { ServiceAccount } from './credentials.js';
import { parseTokenError, tokenExchangeError } from './errors.js';
import { abortable } from '../../../common/abortable.js';

// The cloud mode's access token: the official auth library signs the
// JWT-bearer assertion with the service account's key and keeps the token
// until a few minutes before it expires (contract §8). Its one HTTP request,
// the exchange, goes through our upstream client instead of the library's own
// (no retries, our time budget, the assertion masked in anything reported),
// to the token URL the studio is configured with, else the key file's.

export const CLOUD_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** The vendor's token URL, when neither the studio nor the key file names one. */
export const DEFAULT_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** A token is replaced this long before it expires (a call must not start with one about to lapse). */
const REFRESH_BEFORE_EXPIRY_MS = 5 * 60 * 1000;

const tokenAnswer = lazy(() =>
  z.object({ access_token: z.string().min(1), expires_in: z.number().optional(), token_type: z.string().optional() }),
);

type TokenOptions = NonNullable<ConstructorParameters<typeof GoogleToken>[0]>;
type Transporter = NonNullable<TokenOptions['transporter']>;

/** The library's transport, answered by one upstream call to `tokenUrl`. */
function transporterTo(tokenUrl: string, timeoutMs: () => number): Transporter {
  return {
    async request<T>(options: gaxios.GaxiosOptions): Promise<gaxios.GaxiosResponse<T>> {
      const body = options.data instanceof URLSearchParams ? options.data.toString() : String(options.data ?? '');
      const assertion = new URLSearchParams(body).get('assertion') ?? undefined;
      const data = await callUpstream(
        {
          lane: 'beta-api',
          url: tokenUrl,
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
          credentials: [assertion],
          timeoutMs: timeoutMs(),
          parseError: parseTokenError,
        },
        (response) => readJson('beta-api', response, tokenAnswer, 64 * 1024),
      );
      const config: gaxios.GaxiosOptionsPrepared = { ...options, url: new URL(tokenUrl), headers: new Headers() };
      // The library reads `data` only; T is its token-response type, which `tokenAnswer` checked.
      return Object.assign(new Response(null, { status: 200 }), { config, data: data as T });
    },
  };
}

/** Where a service account's token is exchanged: the studio's token URL (a proxy, the simulator) wins over the key file's. */
export const cloudTokenUrl = (ctx: LaneEnv, account: ServiceAccount): string =>
  ctx.configuredUpstreamUrl('beta-api', 'token') ?? account.token_uri ?? DEFAULT_TOKEN_URL;

/**
 * One fresh exchange for a key file, nothing cached: how a service account is
 * checked before it is saved (`PUT /api/keys/cloud`) and when its key is verified.
 */
export async function exchangeOnce(
  ctx: LaneEnv,
  account: ServiceAccount,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  const { GoogleToken } = await import('google-auth-library');
  const holder = new GoogleToken({
    email: account.client_email,
    key: account.private_key,
    scope: CLOUD_SCOPE,
    transporter: transporterTo(cloudTokenUrl(ctx, account), () => options.timeoutMs),
  });
  const token = await (options.signal ? abortable(holder.getToken(), options.signal) : holder.getToken());
  if (!token.access_token) throw new Error('The token endpoint answered without an access token.');
}

/** One token holder per studio and account: tokens are reused across jobs, never across studios. */
const holders = new WeakMap<LaneEnv, Map<string, GoogleToken>>();

/** The auth library is loaded on the first cloud call, not at start (it is the heaviest module of the studio). */
async function holderFor(ctx: LaneEnv, account: ServiceAccount, tokenUrl: string, timeoutMs: () => number): Promise<GoogleToken> {
  const { GoogleToken } = await import('google-auth-library');
  let byAccount = holders.get(ctx);
  if (!byAccount) holders.set(ctx, (byAccount = new Map()));
  const id = `${account.client_email}\n${account.private_key_id ?? ''}\n${tokenUrl}`;
  let holder = byAccount.get(id);
  if (!holder) {
    holder = new GoogleToken({
      email: account.client_email,
      key: account.private_key,
      scope: CLOUD_SCOPE,
      eagerRefreshThresholdMillis: REFRESH_BEFORE_EXPIRY_MS,
      transporter: transporterTo(tokenUrl, timeoutMs),
    });
    byAccount.set(id, holder);
  }
  return holder;
}

/** A valid access token for the service account; exchanges (once, for every waiting job) when there is none. */
export async function cloudAccessToken(
  ctx: LaneEnv,
  account: ServiceAccount,
  options: { tokenUrl: string; timeoutMs: () => number; signal: AbortSignal },
): Promise<string> {
  const holder = await holderFor(ctx, account, options.tokenUrl, options.timeoutMs);
  try {
    const token = await abortable(holder.getToken(), options.signal);
    if (!token.access_token) throw new Error('The token endpoint answered without an access token.');
    // A minted token is a credential like the key that minted it.
    ctx.secrets.add(token.access_token);
    return token.access_token;
  } catch (error) {
    throw tokenExchangeError(error);
  }
}
