import { ServiceError } from '../../errors.js';
import { UpstreamError } from '../../upstream/index.js';

// The Responses vendor's failures in the spec's codes, for both lanes: HTTP
// error answers, errors inside the stream, and transport failures (those keep
// the upstream client's generic mapping).

export type ResponsesLane = 'api' | 'oauth';

// Prompt-level policy refusals are safety; the image moderation system's blocks are moderation.
const SAFETY_CODES = new Set(['cyber_policy', 'bio_policy', 'invalid_prompt', 'content_policy_violation', 'safety_violation']);
const MODERATION_CODES = new Set(['moderation_blocked', 'content_filter', 'image_content_policy_violation']);
const RATE_CODES = new Set(['rate_limit_exceeded', 'usage_limit_reached', 'slow_down']);
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached']);
const MODEL_CODES = new Set(['model_not_found', 'model_not_supported', 'unsupported_model']);
const OVERLOAD_CODES = new Set(['server_is_overloaded', 'server_error']);

/** Maps an upstream failure of a Responses lane to our code; anything else passes unchanged. */
export function responsesLaneError(lane: ResponsesLane, error: unknown): unknown {
  if (!(error instanceof UpstreamError) || (error.failure !== 'http' && error.failure !== 'vendor')) return error;
  const { status, vendorCode: code = '', vendorType: type = '' } = error;
  const said = error.vendorMessage ? `: ${error.vendorMessage}` : '.';
  if (MODERATION_CODES.has(code) || type === 'image_generation_user_error')
    return error.as('MODERATION_REFUSED', `The upstream moderation refused the request${said}`);
  if (SAFETY_CODES.has(code) || code.endsWith('_policy'))
    return error.as('SAFETY_REFUSAL', `The upstream refused the request for safety reasons${said}`);
  if (QUOTA_CODES.has(code) || QUOTA_CODES.has(type)) {
    return lane === 'api'
      ? error.as('AUTH_API_KEY_INVALID', 'The API key is out of quota (insufficient_quota); check billing.')
      : error.as('RATE_LIMITED', 'The chat subscription has no quota left for this.');
  }
  if (type === 'usage_not_included' || code === 'usage_not_included')
    return error.as('OAUTH_UNAVAILABLE', 'The chat plan does not include image generation.');
  if (status === 401 || code === 'token_expired' || code === 'invalid_api_key') {
    return lane === 'api'
      ? error.as('AUTH_API_KEY_INVALID', 'The upstream refused the API key (invalid or revoked).')
      : error.as('AUTH_CHATGPT_EXPIRED', 'The chat OAuth session expired or was revoked; sign in again.');
  }
  if (status === 429 || RATE_CODES.has(code) || RATE_CODES.has(type))
    return error.as('RATE_LIMITED', `The upstream rate limit was reached${said}`);
  if (MODEL_CODES.has(code)) return error.as('IMAGE_MODEL_UNSUPPORTED', `The upstream does not offer this model${said}`);
  if (status === 504 || status === 408) return error.as('UPSTREAM_TIMEOUT', `The upstream timed out (${status}).`);
  if (status !== undefined && status >= 500) return error.as('UPSTREAM_FAILED', `The upstream failed (${status})${said}`);
  if (OVERLOAD_CODES.has(code)) return error.as('UPSTREAM_FAILED', `The upstream failed${said}`);
  if (status === 403)
    return error.as(lane === 'api' ? 'AUTH_API_KEY_INVALID' : 'AUTH_CHATGPT_EXPIRED', `The upstream refused access (403)${said}`);
  return error.as('UPSTREAM_FAILED', `The upstream rejected the request${status ? ` (${status})` : ''}${said}`);
}

/** Whether the failure is the oauth backend refusing the access token (refresh and try once more). */
export const isRejectedToken = (error: unknown): boolean =>
  error instanceof ServiceError && error.code === 'AUTH_CHATGPT_EXPIRED' && error.details?.upstreamStatus === 401;
