import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempHome, startTestChat } from '../chat/helpers.js';
import { waitFor } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-chat.ts', 'manager', 'serve', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH as string, HOME: process.env.HOME as string, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('svc-chat manager serve', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('follows the workers it is given, prints its start line and stops on SIGTERM', async () => {
    const worker = await startTestChat();
    cleanup.push(() => worker.stop());
    const home = makeTempHome();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const manager = run(['--port', '0', '--json', '--worker', worker.url], { SVC_CHAT_MANAGER_HOME: home });
    cleanup.push(() => manager.child.kill('SIGKILL'));
    const { url } = await waitFor(
      'the start line',
      async () => manager.stdout().includes('\n') && (JSON.parse(manager.stdout()) as { url: string }),
      20_000,
    );
    const online = await waitFor('the worker online', async () => {
      const body = (await (await fetch(`${url}/api/instances`)).json()) as { instances: Array<{ url: string; health: string }> };
      return body.instances.find((instance) => instance.url === worker.url && instance.health === 'online');
    });
    expect(online.url).toBe(worker.url);
    manager.child.kill('SIGTERM');
    expect(await manager.exited).toBe(0);
  });

  it('refuses a bad discovery range or worker URL with the usage exit code', async () => {
    const range = run(['--port', '0', '--discover', '10-9000']);
    expect(await range.exited).toBe(2);
    expect(range.stderr()).toContain('--discover: A discovery range holds at most 200 ports');
    const worker = run(['--port', '0', '--worker', 'http://example.invalid:3344']);
    expect(await worker.exited).toBe(2);
    expect(worker.stderr()).toContain('--worker: http://example.invalid:3344: only loopback hosts are followed');
  });
});
