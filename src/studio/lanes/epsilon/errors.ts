import { UpstreamError, type VendorError } from '../../upstream/index.js';
import { laneError } from '../lane-error.js';

// The epsilon vendor's HTTP failures in our codes (contract §5). Its error
// bodies are JSON `{"statusCode":…, "message":…}`, sometimes `{"error":…}` or
// plain text. 402 is decided with a subscription check (subscription.ts).

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** `message`, then `error`, else the start of the text (contract §5). */
export function parseEpsilonError(body: string): VendorError {
  try {
    const root = asRecord(JSON.parse(body));
    const message = typeof root?.message === 'string' ? root.message : typeof root?.error === 'string' ? root.error : undefined;
    if (message !== undefined) return { message };
  } catch {
    // Plain text: below.
  }
  return { message: body.trim().slice(0, 200) || undefined };
}

/** Maps an HTTP failure (other than 402) to our code; anything else passes unchanged. */
export function epsilonError(error: unknown): unknown {
  if (!(error instanceof UpstreamError) || error.failure !== 'http') return error;
  const status = error.status ?? 0;
  const said = error.vendorMessage ? `: ${error.vendorMessage}` : '.';
  if (status === 401)
    return laneError(error, 'AUTH_API_KEY_INVALID', `epsilon refused the token (401)${said} Check EPSILON_API_KEY.`, false);
  if (status === 429)
    return laneError(
      error,
      'RATE_LIMITED',
      `epsilon rate limit reached (429)${said} Back off: usually another generation is still running.`,
      true,
    );
  if (status === 400) return laneError(error, 'EPSILON_BAD_REQUEST', `epsilon refused the request (400)${said}`, false);
  if (status === 409) return laneError(error, 'EPSILON_REQUEST_CONFLICT', `epsilon refused the request as conflicting (409)${said}`, false);
  if (status === 408 || status === 504) return laneError(error, 'UPSTREAM_TIMEOUT', `epsilon timed out (${status}).`, true);
  return laneError(error, 'UPSTREAM_FAILED', `epsilon failed (${status})${said}`, status >= 500);
}
