import type { DeviceCodeIssuer } from '../device-code.js';
import { createSimulator, type Simulator } from '../harness.js';
import { ISSUER_PATHS, registerAccountRoutes, type DeviceLoginOptions } from './account-routes.js';
import { BILLING_BASE_PATH, initialBilling, registerBillingRoutes, type AlphaBilling } from './billing.js';
import { alphaError, faultBody } from './errors.js';
import { registerImagesRoutes } from './images-routes.js';
import { MediaStore } from './media.js';
import { registerResponsesRoutes } from './responses-routes.js';
import { registerVideoRoutes, VIDEO_ROUTES } from './video-routes.js';
import type { AlphaState } from './state.js';
import { AlphaTokens, DEFAULT_ALPHA_ACCOUNT, type AlphaAccount, type MintOptions } from './tokens.js';

// The simulated vendor behind the `alpha` and `alpha-api` lanes
// (contracts/alpha-images-and-video-jobs.md, quota-and-status-probes.md,
// device-code-grant.md), all on one port:
//   API base      (`alpha`, `alpha-api`) = `${url}/v1`  images, planner (responses), models
//   issuer        (`alpha.issuer`)       = `${url}`     discovery, device code, token
//   billing proxy (`alpha.billing`)      = `${url}/billing-proxy`
//   media links                          = `${url}/media/<name>` (temporary)
// Prompt triggers (`triggers.ts`) script the failures; the billing values are
// set with `PUT /__sim/alpha/billing`; device codes are decided with
// `POST /__sim/alpha/device-codes/approve|deny|expire|slow-down`.

export { ALPHA_TRIGGER_NAMES, type AlphaTriggerName } from './triggers.js';
export { SIM_ALL_MODELS, SIM_ASPECT_RATIOS, SIM_IMAGE_MODELS, SIM_PIXELS, SIM_PLANNER_MODELS, TICKS_PER_USD } from './catalog.js';
export { ALPHA_CLIENT_ID, type AlphaAccount } from './tokens.js';
export type { AlphaBilling } from './billing.js';

export const DEFAULT_ALPHA_KEY = 'sim-alpha-key';

/** Route keys for `simulator.fault(route, …)` and `POST /__sim/faults`. */
export const ALPHA_ROUTES = {
  generations: 'POST /v1/images/generations',
  edits: 'POST /v1/images/edits',
  responses: 'POST /v1/responses',
  models: 'GET /v1/models',
  media: 'GET /media/:name',
  videoGenerations: VIDEO_ROUTES.generations,
  videoEdits: VIDEO_ROUTES.edits,
  videoExtensions: VIDEO_ROUTES.extensions,
  videoPoll: VIDEO_ROUTES.poll,
  discovery: `GET ${ISSUER_PATHS.discovery}`,
  deviceAuthorization: `POST ${ISSUER_PATHS.deviceAuthorization}`,
  token: `POST ${ISSUER_PATHS.token}`,
  billing: `GET ${BILLING_BASE_PATH}/v1/billing`,
  user: `GET ${BILLING_BASE_PATH}/v1/user`,
} as const;

export interface AlphaSimulatorOptions {
  /** Keys the API accepts (default `['sim-alpha-key']`). */
  readonly apiKeys?: readonly string[];
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey?: (key: string) => boolean;
  readonly account?: Partial<AlphaAccount>;
  /** Access-token lifetime (default 1 h). */
  readonly accessTokenTtlSeconds?: number;
  /** Refresh-token lifetime (default 30 days). */
  readonly refreshTokenTtlSeconds?: number;
  /** How long an image render takes (default 0); the search and the planner take a quarter each. */
  readonly latencyMs?: number;
  /** How long a video job runs (default: `latencyMs`; the demo's and `svc sim serve --latency`'s). */
  readonly videoMs?: number;
  /** How long a media link stays valid (default 10 minutes). */
  readonly mediaTtlMs?: number;
  readonly login?: DeviceLoginOptions;
  readonly port?: number;
}

export interface AlphaSimulator {
  readonly url: string;
  /** The API base (`alpha`, `alpha-api`): `${url}/v1`. */
  readonly apiBaseUrl: string;
  /** The issuer (`alpha.issuer`): `${url}`. */
  readonly issuerUrl: string;
  /** The billing proxy (`alpha.billing`). */
  readonly billingUrl: string;
  readonly apiKey: string;
  readonly account: AlphaAccount;
  readonly tokens: AlphaTokens;
  /** The billing meter (the control route changes the same object). */
  readonly billing: AlphaBilling;
  /** The device authorization server: approve, deny, expire codes. */
  readonly devices: DeviceCodeIssuer<AlphaAccount>;
  readonly simulator: Simulator;
  /** Images answered so far. */
  generated(): number;
  close(): Promise<void>;
}

export async function startAlphaSimulator(options: AlphaSimulatorOptions = {}): Promise<AlphaSimulator> {
  const simulator = createSimulator({
    name: 'alpha',
    errorBody: faultBody,
    notFound: (method, path) => alphaError('grpc', 404, `No route ${method} ${path}.`),
  });
  const account: AlphaAccount = { ...DEFAULT_ALPHA_ACCOUNT, ...options.account };
  const tokens = new AlphaTokens(
    () => simulator.url,
    account,
    options.accessTokenTtlSeconds ?? 3600,
    options.refreshTokenTtlSeconds ?? 30 * 24 * 3600,
  );
  const apiKeys = options.apiKeys ?? [DEFAULT_ALPHA_KEY];
  const state: AlphaState = {
    simulator,
    apiKeys: new Set(apiKeys),
    acceptKey: options.acceptKey,
    tokens,
    billing: initialBilling(account.email),
    media: new MediaStore(simulator, options.mediaTtlMs ?? 10 * 60_000),
    latencyMs: options.latencyMs ?? 0,
    generated: 0,
  };
  registerImagesRoutes(state);
  registerResponsesRoutes(state);
  registerVideoRoutes(state, { videoMs: options.videoMs ?? state.latencyMs });
  registerBillingRoutes(simulator, state.billing, tokens);
  const devices = registerAccountRoutes(state, options.login ?? {});
  const url = await simulator.start(options.port ?? 0);
  return {
    url,
    apiBaseUrl: `${url}/v1`,
    issuerUrl: url,
    billingUrl: `${url}${BILLING_BASE_PATH}`,
    apiKey: apiKeys[0] ?? DEFAULT_ALPHA_KEY,
    account,
    tokens,
    billing: state.billing,
    devices,
    simulator,
    generated: () => state.generated,
    close: () => simulator.close(),
  };
}

/** The alpha session file's layout (contract quota-and-status-probes §3.2). */
export interface AlphaSessionFile {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly expiresAt?: number;
  readonly tokenEndpoint?: string;
  readonly email?: string;
  readonly idToken?: string;
  readonly accountId?: string;
}

/** A session file with tokens this simulator accepts; `expired` makes the access token stale already. */
export function createAlphaSession(
  sim: Pick<AlphaSimulator, 'tokens' | 'account' | 'issuerUrl'>,
  options: MintOptions & { expired?: boolean; withoutRefreshToken?: boolean } = {},
): AlphaSessionFile {
  const minted = sim.tokens.mint(sim.account, { ...options, ...(options.expired ? { accessTtlSeconds: -60 } : {}) });
  return {
    accessToken: minted.access_token,
    ...(options.withoutRefreshToken ? {} : { refreshToken: minted.refresh_token }),
    expiresAt: Date.now() + minted.expires_in * 1000,
    tokenEndpoint: `${sim.issuerUrl}${ISSUER_PATHS.token}`,
    email: sim.account.email,
    idToken: minted.id_token,
    accountId: sim.account.userId,
  };
}
