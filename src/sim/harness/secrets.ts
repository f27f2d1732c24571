import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// Simulators keep a request log that tests read; keys and tokens must never
// land in it in clear, so headers and body fields that carry them are masked.
// Tests compare a fingerprint instead of the secret itself.

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key', 'x-goog-api-key']);
const SECRET_FIELDS = new Set([
  'api_key',
  'apikey',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'code_verifier',
  'password',
  'token',
  'key',
  // A JWT-bearer assertion (service-account token exchange) is a signed credential too.
  'assertion',
]);

/** A short stable fingerprint of a secret, so a log can say which one was sent without showing it. */
export function fingerprintSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

/** `sim-omni-key` → `sim-…-key`; short values lose everything but their length. */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return `…(${secret.length})`;
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

/** Masks the credential part of an Authorization-style value, keeping the scheme. */
function maskHeaderValue(value: string): string {
  const space = value.indexOf(' ');
  if (space > 0 && space < 16) return `${value.slice(0, space)} ${maskSecret(value.slice(space + 1))}`;
  return maskSecret(value);
}

export function maskHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    out[name] = SECRET_HEADERS.has(name) ? maskHeaderValue(value) : value;
  }
  return out;
}

/** Deep copy of a parsed body with secret-named string fields masked. */
export function maskBody(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => maskBody(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    out[name] = typeof field === 'string' && SECRET_FIELDS.has(name.toLowerCase()) ? maskSecret(field) : maskBody(field, depth + 1);
  }
  return out;
}

/** Shortens long strings (data URLs, base64) for dumps over HTTP. */
export function abbreviate(value: unknown, limit = 512, depth = 0): unknown {
  if (typeof value === 'string') return value.length > limit ? `${value.slice(0, limit)}…(${value.length} chars)` : value;
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => abbreviate(item, limit, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) out[name] = abbreviate(field, limit, depth + 1);
  return out;
}
