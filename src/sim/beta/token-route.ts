import type { SimRequest, SimResponse } from '../harness.js';
import { JWT_BEARER_GRANT } from './service-accounts.js';
import { oauthError } from './status-errors.js';
import type { BetaState } from './state.js';

// `POST /token`: the JWT-bearer token exchange (contract §8 steps 4–6). A form
// body with the grant type and a signed assertion; an access token, or the
// RFC 6749 error the vendor answers.

async function exchange(state: BetaState, request: SimRequest, response: SimResponse): Promise<void> {
  const type = request.header('content-type') ?? '';
  const form =
    /^application\/x-www-form-urlencoded/i.test(type) && request.body && typeof request.body === 'object'
      ? (request.body as Record<string, unknown>)
      : undefined;
  if (!form) {
    const error = oauthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    return response.json(error.status, error.body);
  }
  if (form.grant_type !== JWT_BEARER_GRANT) {
    const error = oauthError('unsupported_grant_type', `Invalid grant_type: ${String(form.grant_type ?? '')}`);
    return response.json(error.status, error.body);
  }
  const check =
    typeof form.assertion === 'string'
      ? state.accounts.checkAssertion(form.assertion)
      : { ok: false as const, error: 'invalid_request', description: 'Missing required parameter: assertion' };
  if (!check.ok) {
    const error = oauthError(check.error, check.description);
    return response.json(error.status, error.body);
  }
  return response.json(200, state.accounts.mint(check.account), { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' });
}

export function registerTokenRoute(state: BetaState): void {
  state.simulator.route('POST', '/token', (request, response) => exchange(state, request, response));
}
