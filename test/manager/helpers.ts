import { afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startManagerServer, type ManagerServerOptions, type RunningManager } from '../../src/manager/server.js';
import type { InstanceSummary } from '../../src/manager/instances.js';

export interface TestManager extends RunningManager {
  home: string;
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  instances_(): Promise<InstanceSummary[]>;
  /** Polls GET /api/instances until one instance satisfies the check. */
  waitForInstance(what: string, check: (instance: InstanceSummary) => boolean, timeoutMs?: number): Promise<InstanceSummary>;
  stop(): Promise<void>;
}

export async function startTestManager(options: ManagerServerOptions = {}): Promise<TestManager> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'svc-manager-test-'));
  const manager = await startManagerServer({
    port: 0,
    healthIntervalMs: 500,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    ...options,
    home,
  });
  const request = async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${manager.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const list = async () => (await request<{ instances: InstanceSummary[] }>('GET', '/api/instances')).body.instances;
  let latest: InstanceSummary[] = [];
  return {
    ...manager,
    home,
    request,
    instances_: list,
    async waitForInstance(what, check, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        latest = await list();
        const found = latest.find(check);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(latest)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      await manager.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits (polling, bounded) until the async `check` answers a value; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Servers a test starts, stopped after each test, the last started first: `track(started, stop)` registers one and answers it. */
export function stoppedAfterEach(): <T>(started: T, stop: (started: T) => unknown) => T {
  const steps: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of steps.splice(0).reverse()) await step();
  });
  return (started, stop) => {
    steps.push(() => stop(started));
    return started;
  };
}
