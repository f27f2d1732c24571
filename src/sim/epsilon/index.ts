import { createSimulator, type Simulator } from '../harness.js';
import { errorBody, registerEpsilonRoutes } from './routes.js';
import { initialAccount, subscriptionBody, type EpsilonState } from './state.js';

// The simulated vendor behind the `epsilon` lane (contract:
// epsilon-zip-image-generation): `POST /ai/generate-image` answering a ZIP
// holding a PNG, `/user/data` and `/user/subscription`. Lane base = `url`.
//
// Prompt triggers: `[sim:unauthorized]` 401; `[sim:subscription-required]`,
// `[sim:usage-exhausted]` 402 (the next subscription read shows no plan, or
// an active plan with its meter and credits spent); `[sim:ratelimit]` 429;
// `[sim:bad-request]` 400; `[sim:conflict]` 409 (`{error}` body);
// `[sim:server-error]` 500 (plain text); `[sim:status-201]` success as 201;
// `[sim:json-body]` a 200 JSON body instead of a ZIP; `[sim:empty-body]`;
// defective archives: `[sim:zip-encrypted]`, `[sim:zip-descriptor]`,
// `[sim:zip64]`, `[sim:zip-method]`, `[sim:zip-too-large]` (51 MiB declared),
// `[sim:zip-bomb]` (declares a small PNG, inflates to 51 MiB),
// `[sim:zip-truncated]`, `[sim:zip-not-png]`, `[sim:zip-two-entries]`,
// `[sim:zip-crc]`; `[sim:slow=<ms>]` waits.

export { EPSILON_TRIGGERS } from './routes.js';
export { buildZip } from './zip-writer.js';

export const DEFAULT_EPSILON_TOKEN = 'sim-epsilon-token';

export const EPSILON_ROUTES = {
  generate: 'POST /ai/generate-image',
  userData: 'GET /user/data',
  subscription: 'GET /user/subscription',
} as const;

export interface EpsilonSimulatorOptions {
  /** Tokens accepted (default `['sim-epsilon-token']`). */
  readonly tokens?: readonly string[];
  /** Also accept any token with this prefix (the demo: `sim-`). */
  readonly acceptKey?: (key: string) => boolean;
  /** How long a generation takes (default 0). */
  readonly latencyMs?: number;
  readonly port?: number;
}

export interface EpsilonSimulator {
  readonly url: string;
  readonly token: string;
  readonly simulator: Simulator;
  close(): Promise<void>;
}

export async function startEpsilonSimulator(options: EpsilonSimulatorOptions = {}): Promise<EpsilonSimulator> {
  const simulator = createSimulator({
    name: 'epsilon',
    errorBody: (status) => errorBody(status, status === 429 ? 'Concurrent generation is locked' : `Simulated HTTP ${status}.`),
    notFound: () => ({ status: 404, body: errorBody(404, 'Cannot find the requested route.') }),
  });
  const tokens = new Set(options.tokens ?? [DEFAULT_EPSILON_TOKEN]);
  const account = initialAccount();
  const state: EpsilonState = {
    simulator,
    latencyMs: options.latencyMs ?? 0,
    accepts: (token) => tokens.has(token) || options.acceptKey?.(token) === true,
    nextSubscription: 'active',
    subscription: (standing) => subscriptionBody(standing, account),
  };
  registerEpsilonRoutes(state);
  // Tests set the account's numbers (its quota bar): any subset of EpsilonAccount.
  simulator.control('GET', '/__sim/epsilon/account', () => ({ status: 200, body: account }));
  simulator.control('PUT', '/__sim/epsilon/account', ({ body }) => {
    const change = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const unknown = Object.keys(change).filter((field) => !(field in account) || typeof change[field] !== 'number');
    if (unknown.length)
      return { status: 400, body: { error: { code: 'invalid_account', message: `Not numbers of the account: ${unknown.join(', ')}.` } } };
    Object.assign(account, change);
    return { status: 200, body: account };
  });
  const url = await simulator.start(options.port ?? 0);
  return { url, token: [...tokens][0] ?? DEFAULT_EPSILON_TOKEN, simulator, close: () => simulator.close() };
}
