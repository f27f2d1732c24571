import { randomBytes } from 'node:crypto';
import type { ErrorAnswer } from '../harness.js';

// Answers as the delta vendor shapes them (contract §3–4): every answer carries
// `base_resp`, with HTTP 200 for success and for most failures; transport
// errors (429, 5xx) carry the same envelope.

export const STATUS_MESSAGES: Readonly<Record<number, string>> = {
  1000: 'unknown error',
  1001: 'request timeout',
  1002: 'rate limit exceeded, please retry later',
  1004: 'authorization failed, please check your api key and region',
  1008: 'insufficient balance',
  1024: 'internal error',
  1026: 'input new_sensitive',
  1027: 'output new_sensitive',
  1033: 'system error',
  1039: 'token limit exceeded',
  2013: 'invalid params',
  2038: 'real-name verification is required',
  2049: 'invalid api key',
};

export const newTraceId = (): string => randomBytes(16).toString('hex');

/** A failure envelope: `{"id":"", "base_resp": {...}}`, HTTP 200 unless a transport status is given. */
export function failure(statusCode: number, detail?: string, httpStatus = 200): ErrorAnswer {
  const message = STATUS_MESSAGES[statusCode] ?? 'error';
  return {
    status: httpStatus,
    body: { id: '', base_resp: { status_code: statusCode, status_msg: detail ? `${message}: ${detail}` : message } },
  };
}

/** The envelope of an injected transport status (a fault without a body). */
export function transportBody(status: number): unknown {
  if (status === 429) return failure(1002, undefined, status).body;
  if (status === 401 || status === 403) return failure(1004, undefined, status).body;
  if (status >= 500) return failure(1024, undefined, status).body;
  return failure(2013, `HTTP ${status}`, status).body;
}
