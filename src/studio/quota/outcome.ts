import { ServiceError } from '../errors.js';
import type { QuotaResult } from '../api/quota.js';
import { UpstreamError } from '../upstream/index.js';

// What a probe that did not get its numbers answers (contract §1): a refused
// credential is `authenticated: false`; anything else (unreachable, a 5xx,
// an answer off its protocol) is `error: true` — the bar is unknown, not empty.

export const notSignedIn = (provider: string, reason: string): QuotaResult => ({ provider, authenticated: false, windows: [], reason });

export function probeFailed(provider: string, error: unknown, what: string): QuotaResult {
  if (error instanceof UpstreamError) {
    if (error.failure === 'http' && (error.status === 401 || error.status === 403)) {
      return notSignedIn(
        provider,
        `The ${what} refused the credential (${error.status}${error.vendorMessage ? `: ${error.vendorMessage}` : ''}).`,
      );
    }
    return {
      provider,
      authenticated: true,
      windows: [],
      error: true,
      reason: `The ${what} could not be read: ${error.toServiceError().message}`,
    };
  }
  if (error instanceof ServiceError) return { provider, authenticated: true, windows: [], error: true, reason: error.message };
  throw error;
}

/** Epoch seconds (or an ISO text) as ISO; null when it is neither. */
export function isoTime(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return null;
}

export const clampPercent = (value: number): number => Math.min(100, Math.max(0, Math.round(value)));
