// The chat server's HTTP API as the page calls it.
import { takeToken } from '../../shared/token';
import type { StreamLine } from './contract';

export const token = takeToken('svc-chat-token');

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Called on a 401: the server wants its token, which only the URL can bring. */
let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (handler: () => void) => (onUnauthorized = handler);

export async function request(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (response.status === 401) onUnauthorized();
  return response;
}

/** The error message of a failed answer (`{ error: { message } }`). */
export async function errorOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } | string };
  return (typeof body.error === 'string' ? body.error : body.error?.message) ?? `HTTP ${response.status}`;
}

export async function json<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const response = await request(path, init);
  if (!response.ok) throw new ApiError(await errorOf(response), response.status);
  return (await response.json()) as T;
}

/**
 * Reads an NDJSON response line by line (UTF-8 safe across chunks). Leaving
 * the loop early cancels the response, which closes its connection.
 */
export async function* ndjsonLines(response: Response): AsyncGenerator<StreamLine> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += decoder.decode(value ?? new Uint8Array(), { stream: !done });
      let newline;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) yield JSON.parse(line) as StreamLine;
      }
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
