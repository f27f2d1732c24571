import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RequestLogEntry, Simulator } from '../../src/sim/harness.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// A studio wired over real HTTP to one vendor simulator (gamma, delta or
// epsilon), with its own SVC_HOME; helpers the three lanes' tests share.

export interface LaneRig {
  readonly studio: TestStudio;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string): Promise<Response>;
  stop(): Promise<void>;
}

export interface LaneRigOptions {
  /** Upstream base URLs by lane (`gamma`, `delta`, `epsilon`). */
  readonly upstreams: Record<string, string>;
  /** Environment: keys, timeouts. */
  readonly env?: Record<string, string>;
}

export async function startLaneRig(options: LaneRigOptions): Promise<LaneRig> {
  const studio = await startTestStudio({ env: { ...options.env }, upstreams: options.upstreams });
  return {
    studio,
    post: (path, body, headers = {}) =>
      studio.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    get: (path) => studio.request(path),
    stop: () => studio.stop(),
  };
}

export interface ErrorAnswer {
  readonly error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Asserts status and code together (a failure shows both), answers the body. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorAnswer> {
  const body = (await response.json()) as ErrorAnswer;
  expect({ status: response.status, code: body.error?.code, message: body.error?.message }).toMatchObject({ status, code });
  return body;
}

/** The requests a simulator logged since `since` (an id), on one route. */
export const requestsSince = (simulator: Simulator, since: number, route?: string): RequestLogEntry[] =>
  simulator.requests(route ? { route } : undefined).filter((entry) => entry.id > since);

/** The id of the simulator's latest logged request (0 when none): a mark for `requestsSince`. */
export const lastRequestId = (simulator: Simulator): number => simulator.lastRequest()?.id ?? 0;

/**
 * Files under generated/ (thumbnails and temp files included); `imagesOnly` leaves out the
 * thumbnails, which are made after an answer and so may still appear for an earlier success.
 */
export function generatedFiles(studio: TestStudio, options: { imagesOnly?: boolean } = {}): string[] {
  return readdirSync(studio.ctx.paths.generatedDir, { recursive: !options.imagesOnly, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** A small PNG or JPEG as a data URL (references). */
export async function imageDataUrl(format: 'png' | 'jpeg' | 'webp', width = 64, height = 64): Promise<string> {
  const sharp = (await import('sharp')).default;
  const bytes = await sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer();
  return `data:image/${format};base64,${bytes.toString('base64')}`;
}

/** Waits (bounded: about 10 s) until `check` answers something truthy; fails naming `what` otherwise. */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (let tries = 0; tries < 400; tries += 1) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Gave up waiting for ${what}.`);
}
