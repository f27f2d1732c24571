import { maskSecret, type ErrorAnswer, type SimRequest, type SimResponse } from '../harness.js';
import { alphaError, type ErrorShape } from './errors.js';
import type { AlphaState } from './state.js';
import type { AlphaAccessClaims } from './tokens.js';

// Who may call the API: an API key (`alpha-api`), or an access token the
// simulated issuer minted (`alpha`, the OAuth session). Every call sends
// `Authorization: Bearer <credential>` (contract §2).

export type Caller = { readonly kind: 'key'; readonly key: string } | { readonly kind: 'oauth'; readonly claims: AlphaAccessClaims };

export function bearerOf(request: SimRequest): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(request.header('authorization')?.trim() ?? '');
  return match ? match[1].trim() : undefined;
}

/** The caller, or the vendor's refusal: 401 without a credential or with a bad token, 400 for an unknown key (contract §7). */
export function authenticate(state: AlphaState, request: SimRequest, shape: ErrorShape): Caller | ErrorAnswer {
  const credential = bearerOf(request);
  if (!credential)
    return alphaError(shape, 401, 'No API key or token provided. Send it as "Authorization: Bearer <key>".', 'unauthenticated');
  if (state.apiKeys.has(credential) || state.acceptKey?.(credential) === true) return { kind: 'key', key: credential };
  if (credential.split('.').length === 3) {
    const check = state.tokens.checkAccess(credential);
    if (check.ok) return { kind: 'oauth', claims: check.claims };
    return alphaError(
      shape,
      401,
      check.reason === 'expired' ? 'The access token expired.' : 'The access token is not valid.',
      check.reason === 'expired' ? 'token_expired' : 'invalid_token',
    );
  }
  return alphaError(
    shape,
    400,
    `Incorrect API key provided: ${maskSecret(credential)}. You can obtain an API key from the console.`,
    'invalid_api_key',
  );
}

export const isRefusal = (value: Caller | ErrorAnswer): value is ErrorAnswer => 'status' in value;

export const answer = (response: SimResponse, error: ErrorAnswer): Promise<void> => response.json(error.status, error.body, error.headers);
