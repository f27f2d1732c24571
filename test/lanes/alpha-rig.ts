import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createAlphaSession, type AlphaSessionFile, type AlphaSimulator } from '../../src/sim/alpha/index.js';
import { writeJsonFile } from '../../src/common/json-file.js';
import { makeTempHome } from '../helpers/studio.js';
import { startLaneRig, type LaneRig } from './gamma-delta-epsilon-rig.js';

// A studio wired over real HTTP to the alpha simulator: both lanes (the OAuth
// session in the studio's default session file, the key in ALPHA_API_KEY),
// the issuer and the billing proxy.

export interface AlphaRig extends LaneRig {
  /** The session file the `alpha` lane reads. */
  readonly sessionFile: string;
  writeSession(session: AlphaSessionFile | Record<string, unknown>): void;
}

export const alphaUpstreams = (sim: AlphaSimulator): Record<string, string> => ({
  alpha: sim.apiBaseUrl,
  'alpha-api': sim.apiBaseUrl,
  'alpha.issuer': sim.issuerUrl,
  'alpha.billing': sim.billingUrl,
});

export async function startAlphaRig(
  sim: AlphaSimulator,
  options: { env?: Record<string, string>; session?: boolean } = {},
): Promise<AlphaRig> {
  const home = makeTempHome('svc-alpha-');
  const sessionFile = join(home, 'alpha', 'auth.json');
  const writeSession = (session: AlphaSessionFile | Record<string, unknown>) => {
    mkdirSync(join(home, 'alpha'), { recursive: true, mode: 0o700 });
    writeJsonFile(sessionFile, session, { private: true });
  };
  if (options.session !== false) writeSession(createAlphaSession(sim));
  const rig = await startLaneRig({ upstreams: alphaUpstreams(sim), env: { SVC_HOME: home, ALPHA_API_KEY: sim.apiKey, ...options.env } });
  return { ...rig, sessionFile, writeSession };
}

export interface AlphaResult {
  requestId: string;
  provider: string;
  model: string;
  revisedPrompt?: string;
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
  images: {
    filename: string;
    url: string;
    format: string;
    width: number;
    height: number;
    revisedPrompt: string | null;
    settings: Record<string, unknown>;
  }[];
  settings: Record<string, unknown>;
}

/** The `event` and `phase` of every frame of a per-request SSE answer. */
export async function streamedEvents(
  response: Response,
): Promise<{ event: string; phase?: string; result?: AlphaResult; error?: { code: string } }[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { event: string; phase?: string; result?: AlphaResult; error?: { code: string } });
}
