import { UpstreamError, type VendorError } from '../../upstream/index.js';

// The `:generateContent` vendor's failures in the spec's codes (contract §6).
// Its error body is a google.rpc.Status: `{"error":{code,message,status,details}}`,
// where `details` may carry the reason (ErrorInfo), the quota (QuotaFailure)
// and the delay before a retry (RetryInfo `"37s"`, the vendor's only retry hint).

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const detailOf = (details: unknown[], type: string): Record<string, unknown> | undefined =>
  details.map(asRecord).find((detail) => detail?.['@type'] === `type.googleapis.com/google.rpc.${type}`);

/** `"37s"`, `"1.5s"` → whole seconds. */
function seconds(delay: unknown): number | undefined {
  const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return match ? Math.ceil(Number(match[1])) : undefined;
}

/**
 * Reads a google.rpc.Status: `code` is its status name (RESOURCE_EXHAUSTED…),
 * `type` the ErrorInfo reason (API_KEY_INVALID…) or the violated quota's id.
 * Streamed errors arrive wrapped in an array; that form is read too.
 */
export function parseBetaError(body: string): VendorError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.slice(0, 200) || undefined };
  }
  const root = asRecord(Array.isArray(parsed) ? parsed[0] : parsed);
  const error = asRecord(root?.error);
  if (!error) return {};
  const details = Array.isArray(error.details) ? error.details : [];
  const reason = detailOf(details, 'ErrorInfo')?.reason;
  const violations = detailOf(details, 'QuotaFailure')?.violations;
  const quotaId = Array.isArray(violations) ? asRecord(violations[0])?.quotaId : undefined;
  return {
    code: typeof error.status === 'string' ? error.status : undefined,
    type: typeof reason === 'string' ? reason : typeof quotaId === 'string' ? quotaId : undefined,
    message: typeof error.message === 'string' ? error.message : undefined,
    retryAfterSeconds: seconds(detailOf(details, 'RetryInfo')?.retryDelay),
  };
}

/** The token endpoint's RFC 6749 error, `{"error","error_description"}` (contract §8). */
export function parseTokenError(body: string): VendorError {
  try {
    const root = asRecord(JSON.parse(body));
    return {
      code: typeof root?.error === 'string' ? root.error : undefined,
      message: typeof root?.error_description === 'string' ? root.error_description : undefined,
    };
  } catch {
    return { message: body.slice(0, 200) || undefined };
  }
}

const AUTH_REASONS = new Set([
  'API_KEY_INVALID',
  'API_KEY_SERVICE_BLOCKED',
  'ACCESS_TOKEN_EXPIRED',
  'CREDENTIALS_MISSING',
  'ACCESS_TOKEN_TYPE_UNSUPPORTED',
]);

/** Maps a failure of the `:generateContent` call; anything else passes unchanged. */
export function betaCallError(error: unknown, model: string, budgetMs: number): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.failure === 'timeout')
    return error.as('GENERATION_TIMEOUT', `beta-api generation exceeded its budget of ${budgetMs / 1000} s.`);
  if (error.failure !== 'http') return error.toServiceError();
  const { status, vendorCode: code = '', vendorType: type = '' } = error;
  const said = error.vendorMessage ? `: ${error.vendorMessage}` : '.';
  if (status === 429 || code === 'RESOURCE_EXHAUSTED') {
    const daily = type.includes('PerDay');
    return error.as(
      'BETA_API_RATE_LIMITED',
      daily ? 'beta-api daily quota is used up; it resets tomorrow (Pacific time).' : `beta-api rate limit reached${said}`,
    );
  }
  if (status === 401 || status === 403 || AUTH_REASONS.has(type))
    return error.as('AUTH_API_KEY_INVALID', `beta-api refused the credential (${status})${said}`);
  if (status === 404) return error.as('IMAGE_MODEL_UNSUPPORTED', `The upstream does not offer ${model} here${said}`);
  if (status === 504 || code === 'DEADLINE_EXCEEDED')
    return error.as('GENERATION_TIMEOUT', `beta-api generation ran out of time upstream (${status})${said}`);
  if (status !== undefined && status >= 500) return error.as('UPSTREAM_FAILED', `beta-api failed (${status})${said}`);
  return error.as('UPSTREAM_FAILED', `beta-api rejected the request (${status})${said}`);
}

/** Maps a failure of the service account's token exchange. */
export function tokenExchangeError(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.failure === 'timeout')
    return error.as('GENERATION_TIMEOUT', 'The service account token exchange did not finish within the generation budget.');
  if (error.failure !== 'http') return error.toServiceError();
  const said = error.vendorMessage ? ` (${error.vendorCode ?? 'refused'}: ${error.vendorMessage})` : '';
  if (error.status !== undefined && error.status < 500)
    return error.as('AUTH_API_KEY_INVALID', `The token endpoint refused the service account${said}.`);
  return error.as('UPSTREAM_FAILED', `The token endpoint failed (${error.status}).`);
}
