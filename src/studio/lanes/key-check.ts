import type { LaneId } from '../api/index.js';
import { callUpstream, type UpstreamError, type VendorError } from '../upstream/index.js';
import type { KeyCheck } from './types.js';

// Helpers for a lane's key checks (`keyChecks` of its module; keys/checks.ts runs them).

/** A GET the vendor answers 2xx for a good key (nothing is billed). */
export const keyedGet =
  (lane: LaneId, path: string, headers: (key: string) => Record<string, string>, parseError?: (body: string, status: number) => VendorError): KeyCheck['verify'] =>
  (ctx, value, options) =>
    callUpstream(
      { lane, url: `${ctx.upstreamUrl(lane)}${path}`, headers: { accept: 'application/json', ...headers(value) }, credentials: [value], timeoutMs: options.timeoutMs, signal: options.signal, parseError },
      async (response) => void (await response.body?.cancel()),
    );

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** The usual refusal: 401 or 403. */
export const isRefusal = (error: UpstreamError): boolean => error.status === 401 || error.status === 403;
