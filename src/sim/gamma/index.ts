import { createSimulator, type Simulator } from '../harness.js';
import { faultBody, vendorError } from './errors.js';
import { GAMMA_BASE_PATH, registerGammaRoutes } from './routes.js';
import type { GammaState } from './state.js';

// The simulated vendor behind the `gamma` lane (contract:
// gamma-async-prediction-images): reference uploads, submit → prediction id,
// polling (`processing` for about `latencyMs` and at least one poll, then
// `completed` with a link it serves), models. Lane base = `${url}/api/v1`.
//
// Prompt triggers: `[sim:unauthorized]` 401, `[sim:ratelimit]` 429 with
// Retry-After, `[sim:server-error]` 500 (reason in `data.error`),
// `[sim:no-id]` a submit answer without an id; the id elsewhere:
// `[sim:id-top]`, `[sim:id-request-id]`, `[sim:id-data-request-id]`,
// `[sim:id-prediction-id]`; polls: `[sim:starting]` (first poll `starting`),
// `[sim:never]` (processing forever), `[sim:failed]`, `[sim:error-status]`,
// `[sim:canceled]` (with a reason), `[sim:status-top]` (status outside
// `data`), `[sim:done-succeeded]`, `[sim:done-success]`; the output:
// `[sim:output-object]` ({url}), `[sim:output-result]` (in `result`),
// `[sim:output-data-uri]`, `[sim:output-unsafe]` (a plain-http link
// elsewhere), `[sim:output-missing]` (404), `[sim:output-not-image]`,
// `[sim:output-huge]` (declares 512 MiB). Upload answers take a different
// shape by reference index (`url`, `data.url`, `data` string,
// `data.image_url`, `data.download_url`); upload failures come from faults.

export { GAMMA_TRIGGERS, type GammaTrigger } from './triggers.js';
export { GAMMA_BASE_PATH, GAMMA_MODELS } from './routes.js';

export const DEFAULT_GAMMA_KEY = 'sim-gamma-key';

export const GAMMA_ROUTES = {
  upload: `POST ${GAMMA_BASE_PATH}/model/uploadMedia`,
  submit: `POST ${GAMMA_BASE_PATH}/model/generateImage`,
  poll: `GET ${GAMMA_BASE_PATH}/model/prediction/:id`,
  result: `GET ${GAMMA_BASE_PATH}/model/result/:id`,
  models: `GET ${GAMMA_BASE_PATH}/models`,
  file: 'GET /files/:name',
} as const;

export interface GammaSimulatorOptions {
  /** Keys accepted (default `['sim-gamma-key']`). */
  readonly apiKeys?: readonly string[];
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey?: (key: string) => boolean;
  /** How long a prediction runs (default 0: done at the second poll). */
  readonly latencyMs?: number;
  readonly port?: number;
}

export interface GammaSimulator {
  readonly url: string;
  /** The lane's base URL: `${url}/api/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly simulator: Simulator;
  close(): Promise<void>;
}

export async function startGammaSimulator(options: GammaSimulatorOptions = {}): Promise<GammaSimulator> {
  const simulator = createSimulator({
    name: 'gamma',
    errorBody: (status) => faultBody(status),
    notFound: () => vendorError(404, 'Not Found'),
  });
  const keys = new Set(options.apiKeys ?? [DEFAULT_GAMMA_KEY]);
  const state: GammaState = {
    simulator,
    latencyMs: options.latencyMs ?? 0,
    accepts: (key) => keys.has(key) || options.acceptKey?.(key) === true,
    predictions: new Map(),
    uploads: new Map(),
    files: new Map(),
  };
  registerGammaRoutes(state);
  const url = await simulator.start(options.port ?? 0);
  return { url, baseUrl: `${url}${GAMMA_BASE_PATH}`, apiKey: [...keys][0] ?? DEFAULT_GAMMA_KEY, simulator, close: () => simulator.close() };
}
