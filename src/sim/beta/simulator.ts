import { createSimulator, type Simulator } from '../harness.js';
import { registerGenerateRoutes } from './generate-route.js';
import { registerModelsRoutes } from './models-route.js';
import { ServiceAccounts, type ServiceAccountKeyFile } from './service-accounts.js';
import type { BetaState } from './state.js';
import { faultBody, rpcError } from './status-errors.js';
import { registerTokenRoute } from './token-route.js';

// The simulated `:generateContent` vendor behind the `beta-api` lane, both
// surfaces and the token endpoint on one port (contract §1):
//   key surface  (`beta-api`)        = `${url}`  → /v1beta/models/{MODEL}:generateContent
//   cloud surface (`beta-api.cloud`) = `${url}`  → /v1/projects/{P}/locations/{L}/publishers/google/models/{MODEL}:generateContent
//   token endpoint (`beta-api.token`) = `${url}/token`

export type { ServiceAccountKeyFile } from './service-accounts.js';
export { BETA_TRIGGER_NAMES, type BetaTriggerName } from './triggers.js';
export { SIM_MODELS, pixelSize } from './catalog.js';

export const DEFAULT_BETA_API_KEY = 'sim-beta-key';
const DEFAULT_ACCESS_TTL_SECONDS = 3599;

/** Route keys for `simulator.fault(route, …)` and `POST /__sim/faults`. */
export const BETA_ROUTES = {
  keyGenerate: 'POST /v1beta/models/:modelAction',
  cloudGenerate: 'POST /v1/projects/:project/locations/:location/publishers/google/models/:modelAction',
  models: 'GET /v1beta/models',
  model: 'GET /v1beta/models/:model',
  token: 'POST /token',
} as const;

export interface BetaSimulatorOptions {
  /** Keys the key surface accepts (default `['sim-beta-key']`). */
  readonly apiKeys?: readonly string[];
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey?: (key: string) => boolean;
  /** Lifetime of minted access tokens (default 3599 s, as the vendor's). */
  readonly accessTokenTtlSeconds?: number;
  /** Added to every image answer (default 0). */
  readonly generationDelayMs?: number;
  readonly port?: number;
}

export interface BetaSimulator {
  readonly url: string;
  /** The key surface's base (`beta-api`). */
  readonly keyBaseUrl: string;
  /** The cloud surface's host (`beta-api.cloud`). */
  readonly cloudBaseUrl: string;
  /** The token endpoint (`beta-api.token`, and the key files' `token_uri`). */
  readonly tokenUrl: string;
  readonly apiKey: string;
  /** A service account this simulator knows, as its key file. */
  readonly serviceAccount: ServiceAccountKeyFile;
  /** The key file as text (what CLOUD_SERVICE_ACCOUNT_JSON holds). */
  serviceAccountJson(): string;
  readonly accounts: ServiceAccounts;
  readonly simulator: Simulator;
  /** Images answered so far. */
  generated(): number;
  close(): Promise<void>;
}

export async function startBetaSimulator(options: BetaSimulatorOptions = {}): Promise<BetaSimulator> {
  const simulator = createSimulator({
    name: 'beta',
    errorBody: faultBody,
    notFound: (method, path) => rpcError(404, `The requested URL ${path} was not found on this server (${method}).`),
  });
  const url = await simulator.start(options.port ?? 0);
  const tokenUrl = `${url}/token`;
  const accounts = new ServiceAccounts(() => tokenUrl, options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TTL_SECONDS);
  const apiKeys = options.apiKeys ?? [DEFAULT_BETA_API_KEY];
  const state: BetaState = {
    simulator,
    apiKeys: new Set(apiKeys),
    acceptKey: options.acceptKey,
    accounts,
    generationDelayMs: options.generationDelayMs ?? 0,
    generated: 0,
  };
  registerGenerateRoutes(state);
  registerModelsRoutes(state);
  registerTokenRoute(state);
  const serviceAccount = await accounts.create({ name: 'sim-studio' });
  return {
    url,
    keyBaseUrl: url,
    cloudBaseUrl: url,
    tokenUrl,
    apiKey: apiKeys[0] ?? DEFAULT_BETA_API_KEY,
    serviceAccount,
    serviceAccountJson: () => JSON.stringify(serviceAccount, null, 2),
    accounts,
    simulator,
    generated: () => state.generated,
    close: () => simulator.close(),
  };
}
