import { createSimulator, type Simulator } from '../harness.js';
import { transportBody } from './envelope.js';
import { DELTA_TRIGGERS, registerGenerationRoute } from './generation-route.js';
import type { DeltaState } from './state.js';

// The simulated vendor behind the `delta` lane (contract:
// delta-image-generation-base-resp): `POST /v1/image_generation` with the
// `base_resp` envelope, image links under `/files/`. Lane base = `url`.
//
// Prompt triggers: `[sim:code=<n>]` answers HTTP 200 with `base_resp.status_code`
// n (1002 rate limit, 1008 balance, 1026/1027 sensitive, …); `[sim:no-image]`
// succeeds without images; `[sim:filtered]` drops one image (failed_count 1);
// `[sim:data-uri]`, `[sim:bare-string]`, `[sim:count-numbers]` vary the success
// shape as clients have met it; `[sim:slow=<ms>]` waits. Transport errors come
// from fault injection (their bodies are envelopes too).

export { DELTA_TRIGGERS } from './generation-route.js';
export type DeltaTrigger = (typeof DELTA_TRIGGERS)[number];

export const DEFAULT_DELTA_KEY = 'sim-delta-key';

export const DELTA_ROUTES = { generate: 'POST /v1/image_generation', file: 'GET /files/:name' } as const;

export interface DeltaSimulatorOptions {
  /** Keys accepted (default `['sim-delta-key']`). */
  readonly apiKeys?: readonly string[];
  /** Also accept the keys this rule allows (the demo's: any key not marked refused). */
  readonly acceptKey?: (key: string) => boolean;
  /** How long a generation takes (default 0). */
  readonly latencyMs?: number;
  readonly port?: number;
}

export interface DeltaSimulator {
  readonly url: string;
  readonly apiKey: string;
  readonly simulator: Simulator;
  close(): Promise<void>;
}

/** Files kept for links (oldest dropped): links are for a client to fetch soon after. */
const MAX_FILES = 64;

export async function startDeltaSimulator(options: DeltaSimulatorOptions = {}): Promise<DeltaSimulator> {
  const simulator = createSimulator({
    name: 'delta',
    errorBody: (status) => transportBody(status),
    notFound: () => ({ status: 404, body: { base_resp: { status_code: 404, status_msg: 'not found' } } }),
  });
  const keys = new Set(options.apiKeys ?? [DEFAULT_DELTA_KEY]);
  const files = new Map<string, Buffer>();
  const state: DeltaState = {
    simulator,
    latencyMs: options.latencyMs ?? 0,
    accepts: (key) => keys.has(key) || options.acceptKey?.(key) === true,
    publish(name, bytes) {
      files.set(name, bytes);
      if (files.size > MAX_FILES) files.delete(files.keys().next().value as string);
      return `${simulator.url}/files/${name}`;
    },
  };
  registerGenerationRoute(state);
  simulator.route('GET', '/files/:name', (request, response) => {
    const bytes = files.get(request.params.name);
    if (!bytes) return response.send(404, 'not found', 'text/plain');
    return response.send(200, bytes, 'image/jpeg');
  });
  const url = await simulator.start(options.port ?? 0);
  return { url, apiKey: [...keys][0] ?? DEFAULT_DELTA_KEY, simulator, close: () => simulator.close() };
}
