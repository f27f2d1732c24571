import type { ErrorAnswer } from '../harness.js';
import type { InvalidParameter } from './catalog.js';

// Error answers exactly as the two vendor surfaces shape them (contract §7):
// the API's `{"error":{message,type,param,code}}`, the subscription backend's
// `{"detail": …}` for body constraints and its own codes otherwise.

export type Lane = 'api' | 'oauth';

export function apiError(
  status: number,
  message: string,
  fields: { type?: string; param?: string | null; code?: string | null } = {},
  headers?: Record<string, string>,
): ErrorAnswer {
  return {
    status,
    body: { error: { message, type: fields.type ?? 'invalid_request_error', param: fields.param ?? null, code: fields.code ?? null } },
    headers,
  };
}

export function detailError(message: string, status = 400): ErrorAnswer {
  return { status, body: { detail: message } };
}

/** A validation problem as the lane answers it. */
export function invalidAnswer(lane: Lane, problem: InvalidParameter): ErrorAnswer {
  if (lane === 'oauth') return detailError(problem.message, problem.status ?? 400);
  return apiError(problem.status ?? 400, problem.message, { param: problem.param, code: problem.code });
}

export function invalidJson(lane: Lane): ErrorAnswer {
  const message =
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The API expects a JSON payload, but what was sent was not valid JSON.)";
  return lane === 'oauth' ? detailError(message) : apiError(400, message);
}

export const MODERATION_MESSAGE =
  'Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID.';

export function moderationBlocked(): ErrorAnswer {
  return apiError(400, MODERATION_MESSAGE, { type: 'image_generation_user_error', code: 'moderation_blocked' });
}

export function safetyRefusal(lane: Lane): ErrorAnswer {
  if (lane === 'oauth') {
    return {
      status: 400,
      body: { error: { code: 'cyber_policy', message: 'This request was flagged as potentially violating our usage policy.' } },
    };
  }
  return apiError(
    400,
    'Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.',
    { code: 'invalid_prompt' },
  );
}

export function serverError(lane: Lane): ErrorAnswer {
  if (lane === 'oauth')
    return { status: 500, body: { error: { code: 'server_error', message: 'An error occurred while processing your request.' } } };
  return apiError(500, 'The server had an error while processing your request. Sorry about that!', { type: 'server_error' });
}

export function overloaded(lane: Lane): ErrorAnswer {
  if (lane === 'oauth') return { status: 503, body: { error: { code: 'server_is_overloaded' } } };
  return apiError(503, 'The engine is currently overloaded, please try again later.', {
    type: 'server_error',
    code: 'server_is_overloaded',
  });
}

/** Message form clients parse for the delay (`try again in 1.2s` / `…ms`). */
export function retryPhrase(retryMs: number): string {
  return retryMs < 1000 ? `${retryMs}ms` : `${Math.round(retryMs / 100) / 10}s`;
}

export function rateLimited(model: string, retryMs: number): ErrorAnswer {
  return apiError(
    429,
    `Rate limit reached for ${model} in organization org-sim on requests per min (RPM): Limit 60, Used 60, Requested 1. Please try again in ${retryPhrase(retryMs)}.`,
    { type: 'requests', code: 'rate_limit_exceeded' },
    {
      'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))),
      'retry-after-ms': String(retryMs),
      'x-should-retry': 'true',
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': retryPhrase(retryMs),
    },
  );
}

export function insufficientQuota(): ErrorAnswer {
  return apiError(
    429,
    'You exceeded your current quota, please check your plan and billing details.',
    { type: 'insufficient_quota', code: 'insufficient_quota' },
    { 'x-should-retry': 'false' },
  );
}

export function usageLimitReached(planType: string, resetsInSeconds: number, nowSeconds: number): ErrorAnswer {
  return {
    status: 429,
    body: {
      error: {
        type: 'usage_limit_reached',
        message: 'The usage limit has been reached',
        plan_type: planType,
        resets_at: nowSeconds + resetsInSeconds,
        resets_in_seconds: resetsInSeconds,
      },
    },
  };
}

export function usageNotIncluded(planType: string): ErrorAnswer {
  return {
    status: 429,
    body: { error: { type: 'usage_not_included', message: 'Your plan does not include this usage.', plan_type: planType } },
  };
}

export function missingApiKey(): ErrorAnswer {
  return apiError(
    401,
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
  );
}

export function invalidApiKey(masked: string): ErrorAnswer {
  return apiError(401, `Incorrect API key provided: ${masked}. You can find your API key at the simulator's documentation.`, {
    code: 'invalid_api_key',
  });
}

export function tokenExpired(): ErrorAnswer {
  return apiError(401, 'Provided authentication token is expired. Please try signing in again.', { code: 'token_expired' });
}

export function tokenInvalid(): ErrorAnswer {
  return apiError(
    401,
    'Your authentication token has been invalidated. Please try signing in again.',
    { code: 'token_invalidated' },
    { 'x-openai-authorization-error': 'token_invalidated' },
  );
}

export function modelNotFound(lane: Lane, model: string): ErrorAnswer {
  if (lane === 'oauth') return detailError(`The '${model}' model is not supported when using Codex with a ChatGPT account.`);
  return apiError(404, `The model '${model}' does not exist or you do not have access to it.`, { param: 'model', code: 'model_not_found' });
}

/** Body for injected statuses without a body, in the route's own shape. */
export function faultBody(status: number, lane: Lane): unknown {
  if (status === 429)
    return lane === 'oauth' ? usageLimitReached('plus', 3600, Math.floor(Date.now() / 1000)).body : rateLimited('lang-5.6-luna', 1000).body;
  if (status === 401) return lane === 'oauth' ? tokenExpired().body : invalidApiKey('sim-…').body;
  if (status === 503) return overloaded(lane).body;
  if (status >= 500) return serverError(lane).body;
  if (lane === 'oauth') return { detail: `Simulated HTTP ${status}.` };
  return apiError(status, `Simulated HTTP ${status}.`).body;
}
