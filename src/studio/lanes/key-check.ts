import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import type { LaneId } from '../api/index.js';
import { callUpstream, readJson, type UpstreamError, type VendorError } from '../upstream/index.js';
import type { KeyCheck } from './types.js';

// Helpers for a lane's key checks (`keyChecks` of its module; keys/checks.ts runs them).

/** What a key check reads of the answer: at most this much. */
const KEY_CHECK_ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The least a vendor's JSON answer is: an object. Lanes whose contract names the answer's shape
 * pass that instead (a list under `data`, `models`, …).
 */
export const jsonObject = lazy(() => z.object({}).passthrough());

/**
 * A GET the vendor answers 2xx for a good key (nothing is billed), with an answer of the vendor's
 * shape: a captive portal or a wrong base URL answers 200 too, with a page, which proves nothing
 * about the key (the check then says unchecked, UPSTREAM_PROTOCOL_ERROR).
 */
export const keyedGet =
  (
    lane: LaneId,
    path: string,
    headers: (key: string) => Record<string, string>,
    answer: z.ZodType,
    parseError?: (body: string, status: number) => VendorError,
  ): KeyCheck['verify'] =>
  (ctx, value, options) =>
    callUpstream(
      {
        lane,
        url: `${ctx.upstreamUrl(lane)}${path}`,
        headers: { accept: 'application/json', ...headers(value) },
        credentials: [value],
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        parseError,
      },
      async (response) => void (await readJson(lane, response, answer, KEY_CHECK_ANSWER_MAX_BYTES)),
    );

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** The usual refusal: 401 or 403. */
export const isRefusal = (error: UpstreamError): boolean => error.status === 401 || error.status === 403;
