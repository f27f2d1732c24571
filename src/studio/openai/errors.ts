import type { ErrorPayload } from '../api/index.js';

// Every failure on /v1 in OpenAI's error shape, `{ error: { message, type,
// param, code } }`: `code` is the studio's code from the one error table and the
// HTTP status is the table's, so an OpenAI client's error classes (BadRequestError,
// AuthenticationError, ...) follow from the status as they do against OpenAI.

/** The body an OpenAI client reads. */
export interface OpenAIErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string };
}

/** OpenAI's error `type` for an HTTP status. */
export function openaiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** The studio's error payload in OpenAI's shape; `param` is the field the studio names, if any. */
export function openaiError(status: number, error: ErrorPayload): OpenAIErrorBody {
  const field = error.details?.field;
  return {
    error: { message: error.message, type: openaiErrorType(status), param: typeof field === 'string' ? field : null, code: error.code },
  };
}

/**
 * An error answer the studio's own code sent (its hooks, its error handler, a route) rewritten in
 * OpenAI's shape; anything else (a success, a stream, a body that is not the studio's error) as it was.
 */
export function rewriteErrorPayload(status: number, payload: unknown): unknown {
  if (status < 400 || typeof payload !== 'string') return payload;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return payload;
  }
  const error = (body as { error?: Partial<ErrorPayload> } | null)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return payload;
  return JSON.stringify(openaiError(status, error as ErrorPayload));
}
