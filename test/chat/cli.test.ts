import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hangPid, isAlive, makeTempHome, recordEvents, waitFor } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `svc-chat serve` as a child (through tsx, no build needed) and reads the URL it prints. */
async function startProgram(home: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-chat.ts', 'serve', '--demo', '--port', '0'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CHAT_HOME: home, SVC_CHAT_WORKDIR: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc-chat did not print its URL: ${output}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', () => reject(new Error(`svc-chat exited: ${output}`)));
  });
  return { child, url, exited };
}

describe('the svc-chat program', () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  it('serves --demo on the port it prints, and SIGTERM stops it, killing running agents', async () => {
    const home = makeTempHome();
    const { child, url, exited } = await startProgram(home);
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    });

    const health = await fetch(`${url}/api/health`);
    expect(await health.json()).toMatchObject({ ok: true, service: 'svc-chat', demo: true });

    const events = await recordEvents(url);
    const hanging = fetch(`${url}/api/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'stay [fake:hang]' }) }).then((response) => response.text());
    const tool = await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const pid = hangPid((tool.input as { command: string }).command);
    events.close();

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = (await hanging).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toEqual({ type: 'done', status: 'cancelled', reason: 'the server is shutting down' });
    await waitFor('the agent tree to be killed', () => !isAlive(pid), 5000);
  });

  it('refuses a bad port with the usage exit code', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-chat.ts', 'serve', '--port', 'abc'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port must be a port number');
  });
});
