import { maskSecret, type ErrorAnswer, type SimRequest, type SimResponse } from '../harness.js';
import { detailError, invalidApiKey, missingApiKey, tokenExpired, tokenInvalid, type Lane } from './errors.js';
import type { AccessClaims } from './oauth-tokens.js';
import { newId, type ResponsesState } from './state.js';

// Who may call: API keys on the api lane, minted access tokens plus the
// account header on the subscription backend. Also the response headers each
// surface sends on every answer.

const MAX_CLIENT_REQUEST_ID = 512;

function bearer(request: SimRequest): string | undefined {
  const value = request.header('authorization');
  const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
  return match ? match[1].trim() : undefined;
}

export function checkApiKey(state: ResponsesState, request: SimRequest): ErrorAnswer | undefined {
  const key = bearer(request);
  if (!key) return missingApiKey();
  if (state.apiKeys.has(key) || state.acceptKey?.(key) === true) {
    const clientRequestId = request.header('x-client-request-id');
    if (clientRequestId !== undefined && (clientRequestId.length > MAX_CLIENT_REQUEST_ID || !/^[\x20-\x7e]*$/.test(clientRequestId))) {
      return {
        status: 400,
        body: {
          error: {
            message: 'Invalid X-Client-Request-Id header: expected at most 512 printable ASCII characters.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_client_request_id',
          },
        },
      };
    }
    return undefined;
  }
  return invalidApiKey(maskSecret(key));
}

export function checkBackendAccess(state: ResponsesState, request: SimRequest): { claims: AccessClaims } | ErrorAnswer {
  const check = state.tokens.checkAccess(bearer(request));
  if (!check.ok) {
    if (check.reason === 'expired') return tokenExpired();
    if (check.reason === 'missing')
      return {
        status: 401,
        body: {
          error: { message: 'Missing bearer or basic authentication in header', type: 'invalid_request_error', param: null, code: null },
        },
      };
    return tokenInvalid();
  }
  const accountId = request.header('chatgpt-account-id');
  if (!accountId) return detailError('Missing ChatGPT-Account-ID header.');
  if (accountId !== check.claims['https://api.openai.com/auth'].chatgpt_account_id)
    return detailError('You do not have access to this workspace.', 403);
  return { claims: check.claims };
}

/** The lane's own check: an API key on `api`, a backend token and account on `oauth`. */
export function checkLaneAccess(state: ResponsesState, lane: Lane, request: SimRequest): ErrorAnswer | undefined {
  if (lane === 'api') return checkApiKey(state, request);
  const access = checkBackendAccess(state, request);
  return 'status' in access ? access : undefined;
}

/** Headers every answer of a surface carries (request id, rate-limit or usage windows). */
export function surfaceHeaders(state: ResponsesState, lane: Lane, response: SimResponse): void {
  const requestId = newId('req');
  response.setHeader('x-request-id', requestId);
  if (lane === 'oauth') {
    response.setHeader('x-oai-request-id', requestId);
    for (const [name, value] of Object.entries(state.usage.headers())) response.setHeader(name, value);
    return;
  }
  response.setHeader('openai-version', '2020-10-01');
  response.setHeader('openai-organization', 'org-sim');
  response.setHeader('openai-processing-ms', '1');
  response.setHeader('x-ratelimit-limit-requests', '5000');
  response.setHeader('x-ratelimit-remaining-requests', '4999');
  response.setHeader('x-ratelimit-reset-requests', '12ms');
  response.setHeader('x-ratelimit-limit-tokens', '800000');
  response.setHeader('x-ratelimit-remaining-tokens', '799000');
  response.setHeader('x-ratelimit-reset-tokens', '0s');
}

export function answer(response: SimResponse, error: ErrorAnswer): Promise<void> {
  return response.json(error.status, error.body, error.headers);
}
