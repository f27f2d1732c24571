import type { SimRequest, SimResponse } from '../harness.js';
import { answer, checkApiKey, checkBackendAccess, surfaceHeaders } from './access.js';
import { IMAGE_MODELS } from './catalog.js';
import { apiError } from './errors.js';
import { PROFILE_CLAIM, type RefreshFailure, type TokenSet } from './oauth-tokens.js';
import type { ResponsesState } from './state.js';

// The issuer's token and revoke endpoints (contract §2), the backend usage
// probe (`/wham/usage`, quota contract §1.1), and the API's model list (what a
// key check calls).

const REFRESH_MESSAGES: Readonly<Record<RefreshFailure, string>> = {
  refresh_token_expired: 'Your refresh token has expired. Please log out and sign in again.',
  refresh_token_reused: 'Your refresh token has already been used to generate a new access token. Please try signing in again.',
  refresh_token_invalidated: 'Your refresh token has been invalidated. Please try signing in again.',
};

const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function tokenAnswer(tokens: TokenSet) {
  return { ...tokens, token_type: 'Bearer', scope: 'openid profile email offline_access' };
}

async function handleToken(state: ResponsesState, request: SimRequest, response: SimResponse): Promise<void> {
  // The CLI sends JSON; some clients send the same grant form-encoded. Both parse into `body`.
  const body = asRecord(request.body);
  const grant = body.grant_type;
  if (grant === 'refresh_token') {
    if (typeof body.refresh_token !== 'string' || !body.refresh_token) {
      return response.json(400, { error: { code: 'invalid_request', message: "Missing required parameter: 'refresh_token'." } });
    }
    const result = state.tokens.refresh(body.refresh_token);
    if (typeof result === 'string') {
      return response.json(401, { error: { message: REFRESH_MESSAGES[result], type: 'invalid_request_error', param: null, code: result } });
    }
    return response.json(200, tokenAnswer(result));
  }
  if (grant === 'authorization_code') {
    if (typeof body.code !== 'string')
      return response.json(400, { error: { code: 'invalid_request', message: "Missing required parameter: 'code'." } });
    const result = state.tokens.exchangeCode(body.code, typeof body.code_verifier === 'string' ? body.code_verifier : undefined);
    if (result === 'invalid_grant')
      return response.json(400, {
        error: { code: 'invalid_grant', message: 'The authorization code is invalid, expired or already used.' },
      });
    return response.json(200, tokenAnswer(result));
  }
  return response.json(400, { error: { code: 'unsupported_grant_type', message: `Unsupported grant_type '${String(grant)}'.` } });
}

export function registerAccountRoutes(state: ResponsesState): void {
  const { simulator } = state;
  simulator.route('POST', '/oauth/token', (request, response) => handleToken(state, request, response));
  simulator.route('POST', '/oauth/revoke', async (request, response) => {
    const token = asRecord(request.body).token;
    if (typeof token !== 'string' || !token)
      return response.json(400, { error: { code: 'invalid_request', message: "Missing required parameter: 'token'." } });
    state.tokens.revoke(token);
    return response.json(200, {});
  });

  const usage = async (request: SimRequest, response: SimResponse) => {
    surfaceHeaders(state, 'oauth', response);
    const access = checkBackendAccess(state, request);
    if ('status' in access) return answer(response, access);
    // The caller's own account (a switched account sees its email, not the default one's).
    const profile = (access.claims as unknown as Record<string, { email?: unknown } | undefined>)[PROFILE_CLAIM];
    return response.json(200, state.usage.usageBody(typeof profile?.email === 'string' ? profile.email : state.tokens.account.email));
  };
  simulator.route('GET', '/backend-api/wham/usage', usage);
  simulator.route('GET', '/backend-api/codex/usage', usage);
  // Tests set the bars: `PUT /__sim/usage` with `primaryUsedPercent` and/or `secondaryUsedPercent` (0–100).
  simulator.control('GET', '/__sim/usage', () => ({ status: 200, body: state.usage.values }));
  simulator.control('PUT', '/__sim/usage', ({ body }) => {
    const values = asRecord(body);
    const percent = (value: unknown) =>
      value === undefined || (typeof value === 'number' && value >= 0 && value <= 100) ? (value as number | undefined) : Number.NaN;
    const change = { primaryUsedPercent: percent(values.primaryUsedPercent), secondaryUsedPercent: percent(values.secondaryUsedPercent) };
    if (Number.isNaN(change.primaryUsedPercent) || Number.isNaN(change.secondaryUsedPercent)) {
      return {
        status: 400,
        body: { error: { code: 'invalid_usage', message: 'primaryUsedPercent and secondaryUsedPercent are numbers from 0 to 100.' } },
      };
    }
    state.usage.set(change);
    return { status: 200, body: state.usage.values };
  });

  const created = Math.floor(Date.now() / 1000);
  const modelObject = (id: string) => ({ id, object: 'model', created, owned_by: 'system' });
  const modelIds = () => [...state.apiChatModels, ...IMAGE_MODELS];
  simulator.route('GET', '/v1/models', async (request, response) => {
    surfaceHeaders(state, 'api', response);
    const denied = checkApiKey(state, request);
    if (denied) return answer(response, denied);
    return response.json(200, { object: 'list', data: modelIds().map(modelObject) });
  });
  simulator.route('GET', '/v1/models/:id', async (request, response) => {
    surfaceHeaders(state, 'api', response);
    const denied = checkApiKey(state, request);
    if (denied) return answer(response, denied);
    if (!modelIds().includes(request.params.id)) {
      return answer(
        response,
        apiError(404, `The model '${request.params.id}' does not exist`, { param: 'model', code: 'model_not_found' }),
      );
    }
    return response.json(200, modelObject(request.params.id));
  });
}
