import type { ErrorAnswer } from '../harness.js';
import type { Surface } from './catalog.js';

// Error answers as the vendor shapes them (contract §6): a google.rpc.Status in
// JSON, `{"error":{code,message,status,details?}}`. The token endpoint speaks
// OAuth instead (`{"error","error_description"}`, contract §8).

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const DEFAULT_MESSAGES: Readonly<Record<number, string>> = {
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'Deadline expired before operation could complete.',
};

export function rpcError(
  code: number,
  message: string,
  details?: readonly unknown[],
  status = STATUS_NAMES[code] ?? 'UNKNOWN',
): ErrorAnswer {
  return { status: code, body: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

/** The body of an injected status (a fault without a body). */
export const faultBody = (status: number): unknown => rpcError(status, DEFAULT_MESSAGES[status] ?? `Simulated HTTP ${status}.`).body;

export const invalidArgument = (message: string): ErrorAnswer => rpcError(400, message);

export function invalidApiKey(): ErrorAnswer {
  return rpcError(400, 'API key not valid. Please pass a valid API key.', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    },
  ]);
}

export function missingApiKey(): ErrorAnswer {
  return rpcError(
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
}

export function unauthenticated(reason: 'ACCESS_TOKEN_EXPIRED' | 'CREDENTIALS_MISSING' | 'ACCESS_TOKEN_TYPE_UNSUPPORTED'): ErrorAnswer {
  return rpcError(
    401,
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain: 'googleapis.com',
        metadata: { service: 'aiplatform.googleapis.com' },
      },
    ],
  );
}

export function permissionDenied(resource: string): ErrorAnswer {
  return rpcError(403, `Permission 'aiplatform.endpoints.predict' denied on resource '${resource}' (or it may not exist).`);
}

export function modelNotFound(surface: Surface, model: string, resource: string): ErrorAnswer {
  if (surface === 'cloud') return rpcError(404, `Publisher Model \`${resource}\` not found.`);
  return rpcError(
    404,
    `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
  );
}

/**
 * 429. The key surface sends the long form with QuotaFailure, Help and (unless
 * the quota is daily) RetryInfo; the cloud surface the short form without details.
 */
export function resourceExhausted(
  surface: Surface,
  model: string,
  options: { retryDelaySeconds?: number; daily?: boolean } = {},
): ErrorAnswer {
  if (surface === 'cloud')
    return rpcError(
      429,
      'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.',
    );
  const period = options.daily ? 'PerDay' : 'PerMinute';
  const details: unknown[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: `GenerateRequests${period}PerProjectPerModel-FreeTier`,
          quotaDimensions: { location: 'global', model },
          quotaValue: options.daily ? '100' : '10',
        },
      ],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
    },
  ];
  if (!options.daily)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${options.retryDelaySeconds ?? 37}s` });
  const retry = options.daily ? '' : ` Please retry in ${options.retryDelaySeconds ?? 37}s.`;
  return rpcError(
    429,
    `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.${retry}`,
    details,
  );
}

/** The token endpoint's OAuth error (RFC 6749), always 400 here as the vendor sends it. */
export const oauthError = (error: string, description: string): ErrorAnswer => ({
  status: 400,
  body: { error, error_description: description },
});
