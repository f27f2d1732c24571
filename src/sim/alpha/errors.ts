import type { ErrorAnswer } from '../harness.js';

// The alpha vendor's two error body shapes (contract §7): the gRPC-status one
// of the Responses and media endpoints, `{"code":"<status text>","error":"…"}`,
// and the chat-completions one, `{"error":{"message","type","code"}}` (the
// models list; the images and planner routes too under `[sim:object-errors]`).

export type ErrorShape = 'grpc' | 'object';

/** The gRPC status text each HTTP status carries in the `code` field. */
const GRPC_TEXT: Readonly<Record<number, string>> = {
  400: 'Client specified an invalid argument',
  401: 'The request does not have valid authentication credentials',
  403: 'The caller does not have permission to execute the specified operation',
  404: 'Some requested entity was not found',
  413: 'Request entity too large',
  422: 'Client specified an invalid argument',
  429: 'Some resource has been exhausted',
  500: 'Internal error',
  503: 'The service is currently unavailable',
};

const OBJECT_TYPE: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

export function alphaError(
  shape: ErrorShape,
  status: number,
  message: string,
  code?: string,
  headers?: Record<string, string>,
): ErrorAnswer {
  if (shape === 'object')
    return { status, body: { error: { message, type: OBJECT_TYPE[status] ?? 'server_error', code: code ?? null } }, headers };
  return { status, body: { code: GRPC_TEXT[status] ?? `HTTP ${status}`, error: message }, headers };
}

/** The body of an injected status without one (a fault). */
export const faultBody = (status: number): unknown => alphaError('grpc', status, `Simulated HTTP ${status}.`).body;

/** The spend-cap refusal, as the vendor words it (contract §7). */
export const creditsExhausted = (shape: ErrorShape, teamId: string): ErrorAnswer =>
  alphaError(
    shape,
    429,
    `Your team ${teamId} has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit.`,
  );
