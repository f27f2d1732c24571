import { maskSecrets } from '../../../common/secrets.js';
import { ServiceError, type ErrorCode } from '../../../common/errors.js';

// Upstream failures of the Responses-style lanes, mapped to our codes in one
// place: HTTP error answers, in-stream `error` / `response.failed` events, and
// transport failures (refused, reset, cut mid-stream, timed out).

export type ResponsesLane = 'api' | 'oauth';

/** The error object as the vendor sends it, in any of its known spellings. */
export interface UpstreamErrorInfo {
  readonly status?: number;
  readonly code?: string;
  readonly type?: string;
  readonly message?: string;
  /** Seconds until a retry makes sense, when the upstream says. */
  readonly retryAfterSeconds?: number;
}

// Prompt-level policy refusals are safety; the image moderation system's blocks are moderation.
const SAFETY_CODES = new Set(['cyber_policy', 'bio_policy', 'invalid_prompt', 'content_policy_violation', 'safety_violation']);
const MODERATION_CODES = new Set(['moderation_blocked', 'content_filter', 'image_content_policy_violation']);
const RATE_CODES = new Set(['rate_limit_exceeded', 'usage_limit_reached', 'slow_down']);
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached']);
const MODEL_CODES = new Set(['model_not_found', 'model_not_supported', 'unsupported_model']);
const OVERLOAD_CODES = new Set(['server_is_overloaded', 'server_error']);

/** Reads `{error:{code,type,message}}`, `{error:"code"}`, `{code}` or `{detail}` bodies. */
export function parseUpstreamError(status: number | undefined, body: string, headers?: Headers): UpstreamErrorInfo {
  let code: string | undefined;
  let type: string | undefined;
  let message: string | undefined;
  let resetsIn: number | undefined;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed.error;
    if (error && typeof error === 'object') {
      const record = error as Record<string, unknown>;
      code = typeof record.code === 'string' ? record.code : undefined;
      type = typeof record.type === 'string' ? record.type : undefined;
      message = typeof record.message === 'string' ? record.message : undefined;
      if (typeof record.resets_in_seconds === 'number') resetsIn = record.resets_in_seconds;
    } else if (typeof error === 'string') {
      code = error;
    }
    if (!code && typeof parsed.code === 'string') code = parsed.code;
    if (!message && typeof parsed.detail === 'string') message = parsed.detail;
    if (!message && typeof parsed.message === 'string') message = parsed.message;
  } catch {
    message = body.slice(0, 200) || undefined;
  }
  return { status, code, type, message, retryAfterSeconds: retryAfter(headers, message) ?? resetsIn };
}

/** `retry-after-ms`, `retry-after` (seconds or HTTP date), or "try again in 1.2s / 300ms" in the message. */
export function retryAfter(headers: Headers | undefined, message: string | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (headers?.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
  const header = headers?.get('retry-after');
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  const match = message ? /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message) : null;
  if (match) return Math.ceil(Number(match[1]) / (match[2].toLowerCase() === 'ms' ? 1000 : 1));
  return undefined;
}

/** The upstream's own message, kept short and without anything that could carry a credential. */
const upstreamDetails = (info: UpstreamErrorInfo) => {
  const details: Record<string, unknown> = {};
  if (info.status !== undefined) details.upstreamStatus = info.status;
  if (info.code) details.upstreamCode = info.code;
  if (info.type) details.upstreamType = info.type;
  if (info.message) details.upstreamMessage = maskSecrets(info.message).slice(0, 300);
  return details;
};

function error(code: ErrorCode, message: string, info: UpstreamErrorInfo): ServiceError {
  const details = upstreamDetails(info);
  let headers: Record<string, string> | undefined;
  if (code === 'RATE_LIMITED' && info.retryAfterSeconds !== undefined) {
    details.retryAfterSeconds = info.retryAfterSeconds;
    headers = { 'Retry-After': String(info.retryAfterSeconds) };
  }
  // The message quotes the upstream's words, which may echo a credential back.
  return new ServiceError(code, maskSecrets(message), { details, headers });
}

/** Maps an upstream failure (HTTP answer or in-stream error) to our code. */
export function toLaneError(lane: ResponsesLane, info: UpstreamErrorInfo): ServiceError {
  const { status, code = '', type = '' } = info;
  const said = info.message ? `: ${info.message}` : '.';
  if (MODERATION_CODES.has(code) || type === 'image_generation_user_error') return error('MODERATION_REFUSED', `The upstream moderation refused the request${said}`, info);
  if (SAFETY_CODES.has(code) || code.endsWith('_policy')) return error('SAFETY_REFUSAL', `The upstream refused the request for safety reasons${said}`, info);
  if (QUOTA_CODES.has(code) || QUOTA_CODES.has(type)) {
    return lane === 'api'
      ? error('AUTH_API_KEY_INVALID', 'The API key is out of quota (insufficient_quota); check billing.', info)
      : error('RATE_LIMITED', 'The chat subscription has no quota left for this.', info);
  }
  if (type === 'usage_not_included' || code === 'usage_not_included') return error('OAUTH_UNAVAILABLE', 'The chat plan does not include image generation.', info);
  if (status === 401 || code === 'token_expired' || code === 'invalid_api_key') {
    return lane === 'api'
      ? error('AUTH_API_KEY_INVALID', 'The upstream refused the API key (invalid or revoked).', info)
      : error('AUTH_CHATGPT_EXPIRED', 'The chat OAuth session expired or was revoked; sign in again.', info);
  }
  if (status === 429 || RATE_CODES.has(code) || RATE_CODES.has(type)) return error('RATE_LIMITED', `The upstream rate limit was reached${said}`, info);
  if (MODEL_CODES.has(code)) return error('IMAGE_MODEL_UNSUPPORTED', `The upstream does not offer this model${said}`, info);
  if (status === 504 || status === 408) return error('UPSTREAM_TIMEOUT', `The upstream timed out (${status}).`, info);
  if (status !== undefined && status >= 500) return error('UPSTREAM_FAILED', `The upstream failed (${status})${said}`, info);
  if (OVERLOAD_CODES.has(code)) return error('UPSTREAM_FAILED', `The upstream failed${said}`, info);
  if (status === 403) return error(lane === 'api' ? 'AUTH_API_KEY_INVALID' : 'AUTH_CHATGPT_EXPIRED', `The upstream refused access (403)${said}`, info);
  return error('UPSTREAM_FAILED', `The upstream rejected the request${status ? ` (${status})` : ''}${said}`, info);
}

/** Transport failures of fetch: refused, reset, DNS, TLS, a body cut mid-way. */
export function networkError(cause: unknown, stage: 'connect' | 'stream'): ServiceError {
  const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
  const reason = inner?.code ?? inner?.message ?? (cause as Error)?.message ?? 'unknown';
  const message =
    stage === 'connect'
      ? `Could not reach the upstream (${reason}). Check the network, proxy, VPN or firewall.`
      : `The upstream connection broke before the response completed (${reason}).`;
  return new ServiceError('NETWORK_FAILED', message, { details: { stage, reason }, cause });
}
