import { expect } from 'vitest';
import {
  agentQueue,
  agentSession,
  agentSessionBody,
  agentTurn,
  type AgentQueue,
  type AgentSession,
  type AgentSessionBody,
  type AgentTurn,
} from '../../src/studio/api/index.js';

// HTTP helpers of the Agent Mode tests: JSON in, status and JSON out, the
// answers checked against the contract's schemas.

export interface ErrorAnswer {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export interface Answer<T> {
  readonly status: number;
  readonly body: T;
}

export async function call<T = Record<string, unknown>>(baseUrl: string, method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** An error answer with this status and code. */
export async function refused(answer: Promise<Answer<unknown>>, status: number, code: string): Promise<ErrorAnswer['error']> {
  const { status: got, body } = await answer;
  expect({ status: got, code: (body as ErrorAnswer | undefined)?.error?.code }).toEqual({ status, code });
  return (body as ErrorAnswer).error;
}

export async function createSession(baseUrl: string, body: Record<string, unknown> = {}): Promise<AgentSession> {
  const answer = await call(baseUrl, 'POST', '/api/agent/sessions', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return agentSession.parse(answer.body);
}

/** A turn run synchronously: the turn as it ended. */
export async function turn(baseUrl: string, sessionId: string, prompt: string, extra: Record<string, unknown> = {}): Promise<AgentTurn> {
  const answer = await call(baseUrl, 'POST', `/api/agent/sessions/${sessionId}/turns`, { prompt, ...extra });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return agentTurn.parse(answer.body);
}

export async function enqueue(baseUrl: string, sessionId: string, prompt: string, extra: Record<string, unknown> = {}): Promise<AgentTurn> {
  const answer = await call(baseUrl, 'POST', `/api/agent/sessions/${sessionId}/queue`, { prompt, ...extra });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return agentTurn.parse(answer.body);
}

export async function session(baseUrl: string, sessionId: string): Promise<AgentSessionBody> {
  const answer = await call(baseUrl, 'GET', `/api/agent/sessions/${sessionId}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return agentSessionBody.parse(answer.body);
}

export async function queue(baseUrl: string, sessionId: string): Promise<AgentQueue> {
  const answer = await call(baseUrl, 'GET', `/api/agent/sessions/${sessionId}/queue`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return agentQueue.parse(answer.body);
}

/** Polls until `check` answers a value (bounded: 20 s). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
