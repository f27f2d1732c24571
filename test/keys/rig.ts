import { expect } from 'vitest';
import { startSimulatorSuite, type SimulatorSuite } from '../../src/sim/suite.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// A studio wired over real HTTP to every simulator (not in demo mode: each
// simulator accepts only its own keys), with its own SVC_HOME and no keys
// unless a test gives them: what the key, quota and account routes need.

export interface KeysRig {
  readonly suite: SimulatorSuite;
  readonly studio: TestStudio;
  json(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{
    status: number;
    body: Record<string, unknown> & { error?: { code: string; message: string; details?: Record<string, unknown> } };
  }>;
  stop(): Promise<void>;
}

export async function startKeysRig(
  options: { env?: Record<string, string>; suite?: SimulatorSuite; upstreams?: Record<string, string> } = {},
): Promise<KeysRig> {
  const suite = options.suite ?? (await startSimulatorSuite());
  // An empty URL in `upstreams` leaves that endpoint at its default (the vendor's own).
  const upstreams = Object.fromEntries(Object.entries({ ...suite.upstreams, ...options.upstreams }).filter(([, url]) => url !== ''));
  const studio = await startTestStudio({ env: { ...options.env }, upstreams });
  return {
    suite,
    studio,
    async json(method, path, body) {
      const response = await studio.request(path, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async stop() {
      await studio.stop();
      if (!options.suite) await suite.close();
    },
  };
}

/** Asserts status and code together, so a failure shows both. */
export function expectCode(
  answer: { status: number; body: { error?: { code: string; message: string } } },
  status: number,
  code: string,
): void {
  expect({ status: answer.status, code: answer.body.error?.code, message: answer.body.error?.message }).toMatchObject({ status, code });
}
