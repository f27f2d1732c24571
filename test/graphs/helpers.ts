import type { TestStudio } from '../helpers/studio.js';

// Small HTTP helpers for the graph tests: JSON in, status, headers and JSON out.

export interface Answer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface ErrorAnswer {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export async function call<T = Record<string, unknown>>(
  studio: TestStudio,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const response = await studio.request(path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A graph node at a position, with a little data. */
export const node = (id: string, x = 0, y = 0, data: Record<string, unknown> = {}) => ({ id, position: { x, y }, data });

/** An edge; `edit` unless said. */
export const edge = (id: string, source: string, target: string, kind?: 'edit' | 'reference') => ({
  id,
  source,
  target,
  ...(kind ? { kind } : {}),
});
