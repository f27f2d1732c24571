import type { ErrorCode } from '../../errors.js';
import { UpstreamError, type VendorError } from '../../upstream/index.js';
import { laneError } from '../lane-error.js';

// The delta vendor's failures in our codes. Its answers carry a `base_resp`
// envelope, usually with HTTP 200: a non-zero `status_code` is a failure
// whatever the HTTP status said (contract §4). Each known code maps to one of
// ours and says whether a retry can help; rate limits add back-off advice
// (Retry-After), since the vendor sends no header for it.

interface BaseRespRule {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** What it means, for the message. */
  readonly meaning: string;
  /** Back-off advice in seconds (ours: the vendor gives none). */
  readonly backoffSeconds?: number;
}

export const DELTA_STATUS_CODES: Readonly<Record<number, BaseRespRule>> = {
  1000: { code: 'UPSTREAM_FAILED', retryable: true, meaning: 'unknown error; try again later' },
  1001: { code: 'UPSTREAM_TIMEOUT', retryable: true, meaning: 'the request timed out upstream; try again later' },
  1002: { code: 'RATE_LIMITED', retryable: true, meaning: 'rate limit reached; back off and retry', backoffSeconds: 10 },
  1004: {
    code: 'AUTH_API_KEY_INVALID',
    retryable: false,
    meaning: 'not authorized: check DELTA_API_KEY and that the base URL is the region the key belongs to',
  },
  1008: { code: 'DELTA_INSUFFICIENT_BALANCE', retryable: false, meaning: 'insufficient balance: top up the account' },
  1024: { code: 'UPSTREAM_FAILED', retryable: true, meaning: 'internal error upstream; try again later' },
  1026: { code: 'SAFETY_REFUSAL', retryable: false, meaning: 'the prompt or reference was flagged as sensitive' },
  1027: { code: 'MODERATION_REFUSED', retryable: false, meaning: 'the generated image was flagged as sensitive' },
  1033: { code: 'UPSTREAM_FAILED', retryable: true, meaning: 'system error upstream; try again later' },
  1039: { code: 'RATE_LIMITED', retryable: true, meaning: 'token limit reached; back off and retry', backoffSeconds: 60 },
  2013: { code: 'DELTA_INVALID_PARAMETERS', retryable: false, meaning: 'invalid parameters' },
  2038: { code: 'DELTA_ACCOUNT_VERIFICATION_REQUIRED', retryable: false, meaning: 'the account needs real-name verification' },
  2049: { code: 'AUTH_API_KEY_INVALID', retryable: false, meaning: 'invalid API key' },
};

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** An error answer's body: a `base_resp` envelope when there is one, else its text. */
export function parseDeltaError(body: string): VendorError {
  try {
    const baseResp = asRecord(asRecord(JSON.parse(body))?.base_resp);
    if (baseResp && typeof baseResp.status_code === 'number') {
      return { code: String(baseResp.status_code), message: typeof baseResp.status_msg === 'string' ? baseResp.status_msg : undefined };
    }
  } catch {
    // Not JSON: the text below.
  }
  return { message: body.slice(0, 200) || undefined };
}

/** A non-zero `status_code` in an answer, as the failure it is. */
export function baseRespFailure(statusCode: number, statusMessage: string | undefined): UpstreamError {
  const rule = DELTA_STATUS_CODES[statusCode];
  return new UpstreamError(`delta answered status_code ${statusCode}${statusMessage ? `: ${statusMessage}` : '.'}`, {
    lane: 'delta',
    failure: 'vendor',
    code: String(statusCode),
    message: statusMessage,
    retryAfterSeconds: rule?.backoffSeconds,
  });
}

/** Maps a delta failure (an envelope code, or an HTTP error) to our code; anything else passes unchanged. */
export function deltaError(error: unknown): unknown {
  if (!(error instanceof UpstreamError) || (error.failure !== 'http' && error.failure !== 'vendor')) return error;
  const said = error.vendorMessage ? ` (${error.vendorMessage})` : '';
  const statusCode = error.vendorCode === undefined ? undefined : Number(error.vendorCode);
  const rule = statusCode === undefined ? undefined : DELTA_STATUS_CODES[statusCode];
  if (rule) return laneError(error, rule.code, `delta: ${rule.meaning} [status_code ${statusCode}]${said}.`, rule.retryable);
  if (statusCode !== undefined && statusCode !== 0)
    return laneError(error, 'UPSTREAM_FAILED', `delta answered status_code ${statusCode}${said}.`, false);
  // An HTTP error without a known envelope code: the status decides.
  const status = error.status ?? 0;
  if (status === 401 || status === 403) return laneError(error, 'AUTH_API_KEY_INVALID', `delta refused the key (${status})${said}.`, false);
  if (status === 429) return laneError(error, 'RATE_LIMITED', `delta rate limit reached (429)${said}.`, true);
  if (status === 408 || status === 504) return laneError(error, 'UPSTREAM_TIMEOUT', `delta timed out (${status}).`, true);
  return laneError(error, 'UPSTREAM_FAILED', `delta failed (${status})${said}.`, status >= 500);
}
