import type { ErrorAnswer } from '../harness.js';

// The gamma vendor's error bodies (contract §5, inferred from a sister
// platform): `{"code":<http>,"message":"…","data":null}`, and for some server
// errors the reason in `data.error` with an empty message.

export const vendorError = (status: number, message: string, headers?: Record<string, string>): ErrorAnswer => ({
  status,
  body: { code: status, message, data: null },
  headers,
});

export const dataError = (status: number, reason: string): ErrorAnswer => ({
  status,
  body: { code: status, message: '', data: { error: reason } },
});

/** The body of an injected status without one. */
export function faultBody(status: number): unknown {
  if (status === 401) return vendorError(401, 'Unauthorized: invalid api key').body;
  if (status === 429) return vendorError(429, 'Too many requests').body;
  if (status >= 500) return dataError(status, 'internal server error').body;
  return vendorError(status, `Simulated HTTP ${status}`).body;
}
