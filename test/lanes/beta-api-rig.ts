import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { BetaSimulator } from '../../src/sim/beta/simulator.js';
import type { RequestLogEntry } from '../../src/sim/harness.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// A studio whose beta-api lane talks over real HTTP to the `:generateContent`
// simulator (both surfaces), with its own SVC_HOME.

export interface BetaRig {
  readonly studio: TestStudio;
  generate(body: Record<string, unknown>, path?: string): Promise<Response>;
  stop(): Promise<void>;
}

export interface BetaRigOptions {
  /** BETA_API_KEY (default: the simulator's key; false: none). */
  readonly key?: string | false;
  /** CLOUD_SERVICE_ACCOUNT_JSON (default: none). */
  readonly serviceAccount?: string;
  /** The saved mode in config.json. */
  readonly betaAuthMode?: 'apikey' | 'cloud';
  /** Keys saved in config.json (`keys.beta`, `keys.cloud`). */
  readonly configKeys?: Record<string, string>;
  /** Point `beta-api.token` at the simulator (default: the key file's token_uri is used). */
  readonly tokenUrl?: string;
  readonly env?: Record<string, string>;
}

export async function startBetaRig(sim: BetaSimulator, options: BetaRigOptions = {}): Promise<BetaRig> {
  const home = makeTempHome('svc-beta-');
  if (options.betaAuthMode || options.configKeys) {
    mkdirSync(home, { recursive: true });
    const config = {
      ...(options.betaAuthMode ? { betaAuthMode: options.betaAuthMode } : {}),
      ...(options.configKeys ? { keys: options.configKeys } : {}),
    };
    writeFileSync(join(home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  }
  const key = options.key === undefined ? sim.apiKey : options.key;
  const studio = await startTestStudio({
    env: {
      SVC_HOME: home,
      ...(key ? { BETA_API_KEY: key } : {}),
      ...(options.serviceAccount ? { CLOUD_SERVICE_ACCOUNT_JSON: options.serviceAccount } : {}),
      ...options.env,
    },
    upstreams: {
      'beta-api': sim.keyBaseUrl,
      'beta-api.cloud': sim.cloudBaseUrl,
      ...(options.tokenUrl ? { 'beta-api.token': options.tokenUrl } : {}),
    },
  });
  return {
    studio,
    generate: (body, path = '/api/generate') =>
      studio.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'beta-api', ...body }),
      }),
    stop: () => studio.stop(),
  };
}

export interface ErrorAnswer {
  readonly error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Asserts status and code together (a failure shows both and the message), answers the body. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorAnswer> {
  const body = (await response.json()) as ErrorAnswer;
  expect({ status: response.status, code: body.error?.code, message: body.error?.message }).toMatchObject({ status, code });
  return body;
}

export interface ImageAnswer {
  readonly provider: string;
  readonly model: string;
  readonly images: { filename: string; width: number; height: number; format: string; settings: Record<string, unknown> }[];
  readonly settings: Record<string, unknown>;
  readonly usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
}

/** A 200 with one image, answered as such (a failure shows the error body). */
export async function expectImage(response: Response): Promise<ImageAnswer> {
  const body = (await response.json()) as ImageAnswer & Partial<ErrorAnswer>;
  expect({ status: response.status, error: body.error }).toEqual({ status: 200, error: undefined });
  expect(body.images).toHaveLength(1);
  return body;
}

/** The simulator's requests after `mark` (a request id), optionally on one route. */
export const requestsAfter = (sim: BetaSimulator, mark: number, route?: string): RequestLogEntry[] =>
  sim.simulator.requests(route ? { route } : undefined).filter((entry) => entry.id > mark);

/** The id of the simulator's latest request: a mark for `requestsAfter`. */
export const lastRequestId = (sim: BetaSimulator): number => sim.simulator.lastRequest()?.id ?? 0;

/** Files under generated/ (thumbnails and temp files included). */
export const generatedFiles = (studio: TestStudio): string[] =>
  readdirSync(studio.ctx.paths.generatedDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

/** A small image as a data URL (references, edits). */
export async function imageDataUrl(format: 'png' | 'jpeg' | 'webp', width = 64, height = 64): Promise<string> {
  const sharp = (await import('sharp')).default;
  const bytes = await sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer();
  return `data:image/${format};base64,${bytes.toString('base64')}`;
}
