import { createSimulator, type Simulator } from './harness.js';
import type { DeviceCodeIssuer } from './device-code.js';
import { registerAccountRoutes } from './responses/account-routes.js';
import { API_CHAT_MODELS, OAUTH_CHAT_MODELS } from './responses/catalog.js';
import { detailError, faultBody } from './responses/errors.js';
import { DEVICE_LOGIN_PATHS, registerDeviceLogin, type DeviceLoginOptions } from './responses/device-login.js';
import { registerImagesRoutes } from './responses/images-routes.js';
import { DEFAULT_ACCOUNT, PROACTIVE_REFRESH_DAYS, TokenAuthority, type OauthAuthFile, type SimAccount } from './responses/oauth-tokens.js';
import { registerResponsesRoutes } from './responses/responses-routes.js';
import { StoredResponses, type ResponsesState } from './responses/state.js';
import { UsageWindows } from './responses/usage-windows.js';

// The simulated vendor behind the `api` and `oauth` lanes: the Responses
// stream with the hosted image tool, the classic images endpoints, the
// subscription backend and its token issuer, all on one port:
//   api lane base        = `${url}/v1`
//   oauth backend base   = `${url}/backend-api`
//   oauth issuer         = `${url}`

export type { OauthAuthFile, SimAccount } from './responses/oauth-tokens.js';
export { TRIGGER_NAMES, type TriggerName } from './responses/triggers.js';
export { API_CHAT_MODELS, OAUTH_CHAT_MODELS, IMAGE_MODELS, DEFAULT_IMAGE_MODEL } from './responses/catalog.js';

export const DEFAULT_API_KEY = 'sim-omni-key';
const DEFAULT_ACCESS_TTL_SECONDS = 10 * 24 * 3600;
const DEFAULT_REFRESH_TTL_SECONDS = 60 * 24 * 3600;

/** Route keys for `simulator.fault(route, …)` and `POST /__sim/faults`. */
export const RESPONSES_ROUTES = {
  apiResponses: 'POST /v1/responses',
  apiRetrieve: 'GET /v1/responses/:id',
  apiCancel: 'POST /v1/responses/:id/cancel',
  apiImageGenerations: 'POST /v1/images/generations',
  apiImageEdits: 'POST /v1/images/edits',
  apiModels: 'GET /v1/models',
  oauthResponses: 'POST /backend-api/codex/responses',
  oauthImageGenerations: 'POST /backend-api/codex/images/generations',
  oauthImageEdits: 'POST /backend-api/codex/images/edits',
  oauthUsage: 'GET /backend-api/wham/usage',
  oauthToken: 'POST /oauth/token',
  oauthRevoke: 'POST /oauth/revoke',
  deviceUserCode: `POST ${DEVICE_LOGIN_PATHS.userCode}`,
  deviceToken: `POST ${DEVICE_LOGIN_PATHS.token}`,
} as const;

export interface ResponsesSimulatorOptions {
  /** Keys the api lane accepts (default `['sim-omni-key']`). */
  readonly apiKeys?: readonly string[];
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey?: (key: string) => boolean;
  /** The subscription account the issuer signs tokens for. */
  readonly account?: Partial<SimAccount>;
  /** Access-token lifetime (default 10 days). */
  readonly accessTokenTtlSeconds?: number;
  /** Refresh-token lifetime (default 60 days). */
  readonly refreshTokenTtlSeconds?: number;
  readonly apiChatModels?: readonly string[];
  readonly oauthChatModels?: readonly string[];
  /** Simulated render time spread over partial images and the final one (default 0 = as fast as possible). */
  readonly generationDelayMs?: number;
  /** Send `codex.rate_limits` first on backend streams (default true). */
  readonly rateLimitsEvent?: boolean;
  /** Subscription usage windows: starting percents and the percent each generation adds. */
  readonly usage?: { readonly primaryUsedPercent?: number; readonly secondaryUsedPercent?: number; readonly percentPerRequest?: number };
  /** The issuer's device login (§6): demo auto-approval, poll interval, code lifetime. */
  readonly deviceLogin?: DeviceLoginOptions;
  /** Port to bind on 127.0.0.1 (default 0 = ephemeral). */
  readonly port?: number;
}

export interface ResponsesSimulator {
  /** `http://127.0.0.1:<port>` (also the oauth issuer). */
  readonly url: string;
  /** api lane base: `${url}/v1`. */
  readonly apiBaseUrl: string;
  /** oauth backend base: `${url}/backend-api`. */
  readonly backendBaseUrl: string;
  /** oauth issuer: `${url}`. */
  readonly issuerUrl: string;
  /** The first accepted API key. */
  readonly apiKey: string;
  readonly account: SimAccount;
  /** Mints tokens, issues authorization codes (for login flows built on this issuer). */
  readonly tokens: TokenAuthority;
  /** The device login's codes: approve (as any account), deny, expire. */
  readonly devices: DeviceCodeIssuer<Partial<SimAccount>>;
  /** The harness underneath: faults, request log, open streams. */
  readonly simulator: Simulator;
  close(): Promise<void>;
}

function laneOfRoute(routeKey: string): 'api' | 'oauth' | 'issuer' {
  if (routeKey.includes(' /backend-api/')) return 'oauth';
  if (routeKey.includes(' /oauth/')) return 'issuer';
  return 'api';
}

export async function startResponsesSimulator(options: ResponsesSimulatorOptions = {}): Promise<ResponsesSimulator> {
  const simulator = createSimulator({
    name: 'responses',
    errorBody: (status, routeKey) => {
      const lane = laneOfRoute(routeKey);
      if (lane === 'issuer')
        return { error: { code: status === 401 ? 'refresh_token_invalidated' : 'server_error', message: `Simulated HTTP ${status}.` } };
      return faultBody(status, lane);
    },
    notFound: (method, path) =>
      path.startsWith('/backend-api/')
        ? detailError('Not Found', 404)
        : {
            status: 404,
            body: { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', param: null, code: null } },
          },
  });
  const account: SimAccount = { ...DEFAULT_ACCOUNT, ...options.account };
  const tokens = new TokenAuthority(
    () => simulator.url,
    account,
    options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TTL_SECONDS,
    options.refreshTokenTtlSeconds ?? DEFAULT_REFRESH_TTL_SECONDS,
  );
  const apiKeys = options.apiKeys ?? [DEFAULT_API_KEY];
  const state: ResponsesState = {
    simulator,
    apiKeys: new Set(apiKeys),
    acceptKey: options.acceptKey,
    tokens,
    usage: new UsageWindows({ ...options.usage, planType: account.planType }),
    apiChatModels: options.apiChatModels ?? API_CHAT_MODELS,
    oauthChatModels: options.oauthChatModels ?? OAUTH_CHAT_MODELS,
    generationDelayMs: options.generationDelayMs ?? 0,
    rateLimitsEvent: options.rateLimitsEvent ?? true,
    stored: new StoredResponses(),
  };
  registerResponsesRoutes(state);
  registerImagesRoutes(state);
  registerAccountRoutes(state);
  const devices = registerDeviceLogin(state, options.deviceLogin ?? {});
  const url = await simulator.start(options.port ?? 0);
  return {
    url,
    apiBaseUrl: `${url}/v1`,
    backendBaseUrl: `${url}/backend-api`,
    issuerUrl: url,
    apiKey: apiKeys[0] ?? DEFAULT_API_KEY,
    account,
    tokens,
    devices,
    simulator,
    close: () => simulator.close(),
  };
}

export interface OauthSessionOptions {
  /** The access token is already expired and `last_refresh` is past the proactive-refresh age. */
  readonly expired?: boolean;
  /** The refresh token is expired too (refresh answers `refresh_token_expired`). */
  readonly refreshExpired?: boolean;
}

/** A session in the vendor CLI's auth.json layout, with tokens this simulator accepts. */
export function createOauthSession(sim: Pick<ResponsesSimulator, 'tokens' | 'account'>, options: OauthSessionOptions = {}): OauthAuthFile {
  const minted = sim.tokens.mint(sim.account, {
    ...(options.expired ? { accessTtlSeconds: -60 } : {}),
    ...(options.refreshExpired ? { refreshTtlSeconds: -60 } : {}),
  });
  const lastRefresh = options.expired ? new Date(Date.now() - (PROACTIVE_REFRESH_DAYS + 1) * 24 * 3600 * 1000) : new Date();
  return {
    auth_mode: 'chatgpt',
    OPENAI_API_KEY: null,
    tokens: {
      id_token: minted.id_token,
      access_token: minted.access_token,
      refresh_token: minted.refresh_token,
      account_id: sim.account.accountId,
    },
    last_refresh: lastRefresh.toISOString(),
  };
}
