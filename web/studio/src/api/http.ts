import type { ErrorPayload } from './contract';
import { accessToken } from './token';

/** An error answer of the API, in its one shape; network failures become code NETWORK. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;

  constructor(status: number, payload: ErrorPayload) {
    super(payload.message);
    this.name = 'ApiError';
    this.code = payload.code;
    this.status = status;
    this.details = payload.details;
  }

  get payload(): ErrorPayload {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/** Turns whatever was thrown into the error shape the UI shows. */
export function toErrorPayload(error: unknown): ErrorPayload {
  if (error instanceof ApiError) return error.payload;
  return { code: 'NETWORK', message: error instanceof Error ? error.message : String(error) };
}

function isErrorBody(body: unknown): body is { error: ErrorPayload } {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as ErrorPayload).code === 'string';
}

/** Listeners told when the server asks for its token (the shell shows how to give it). */
const tokenListeners = new Set<() => void>();
export const onTokenRequired = (listener: () => void): (() => void) => {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
};

/**
 * One JSON call to the studio: the token as a header, a JSON body when given
 * (and any extra headers, e.g. a graph save's If-Match), and any non-2xx
 * answer thrown as an ApiError.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (error) {
    throw new ApiError(0, {
      code: 'NETWORK',
      message: `The studio did not answer (${error instanceof Error ? error.message : String(error)}).`,
    });
  }
  const text = await response.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!response.ok) {
    const payload: ErrorPayload = isErrorBody(body)
      ? body.error
      : { code: `HTTP_${response.status}`, message: `The studio answered ${response.status}.` };
    if (payload.code === 'TOKEN_REQUIRED') for (const listener of tokenListeners) listener();
    throw new ApiError(response.status, payload);
  }
  return body as T;
}
