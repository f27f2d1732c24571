import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hangPid, isAlive, makeTempHome, recordEvents, waitFor } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Program {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** Starts `svc-chat serve` as a child (through tsx, no build needed) and reads the URL it prints. */
async function startProgram(home: string, extra: { args?: string[]; env?: Record<string, string> } = {}): Promise<Program> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/svc-chat.ts', 'serve', '--demo', '--port', '0', ...(extra.args ?? [])],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CHAT_HOME: home, SVC_CHAT_WORKDIR: home, ...extra.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
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
  return { child, url, exited, stderr: () => stderr };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Starts a run whose agent hangs with a grandchild; answers both pids once the tool call is out. */
async function startHangingRun(url: string): Promise<{ agent: number; grandchild: number }> {
  const events = await recordEvents(url);
  void fetch(`${url}/api/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'stay [fake:hang]' }),
  })
    .then((response) => response.text())
    .catch(() => '');
  const tool = await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
  events.close();
  const grandchild = hangPid((tool.input as { command: string }).command);
  const status = (await (await fetch(`${url}/api/status`)).json()) as { queues: Array<{ active: { pid: number } }> };
  return { agent: status.queues[0].active.pid, grandchild };
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
    const hanging = fetch(`${url}/api/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'stay [fake:hang]' }),
    }).then((response) => response.text());
    const tool = await events.waitFor('the hang tool call', (event) => event.event === 'agent_tool');
    const pid = hangPid((tool.input as { command: string }).command);
    events.close();

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = (await hanging)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toEqual({ type: 'done', status: 'cancelled', reason: 'the server is shutting down' });
    await waitFor('the agent tree to be killed', () => !isAlive(pid), 5000);
  });

  it('a second SIGINT exits 130 at once, and the running agents still die with the server', async () => {
    const home = makeTempHome();
    const { child, url, exited } = await startProgram(home);
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    });
    const { agent, grandchild } = await startHangingRun(url);
    // Should the test fail, the agents it left behind go with it.
    cleanup.push(() => killGroup(agent));

    child.kill('SIGINT');
    // The first signal was taken: the server is shutting down (the hang ignores SIGTERM, so it takes a while).
    let refusing = false;
    for (let attempt = 0; attempt < 200 && !refusing; attempt += 1) {
      const response = await fetch(`${url}/api/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"prompt":"late"}',
      });
      refusing = response.status === 503;
      await response.body?.cancel();
      if (!refusing) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(refusing).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await waitFor('the agent and its grandchild to be killed', () => !isAlive(agent) && !isAlive(grandchild), 5000);
  });

  it('a crash of the server process kills the running agents too', async () => {
    const home = makeTempHome();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/chat/fixtures/crashing-server.mts', home], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL: ${stderr}`)), 20_000);
      child.stdout.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        resolve(chunk.toString().trim());
      });
    });
    const { agent, grandchild } = await startHangingRun(url);
    // Should the test fail, the agents it left behind go with it.
    cleanup.push(() => killGroup(agent));

    child.stdin.write('crash\n');
    expect(await exited).toBe(1);
    expect(stderr).toContain('simulated crash');
    await waitFor('the agent and its grandchild to be killed', () => !isAlive(agent) && !isAlive(grandchild), 5000);
  });

  it('with --log and SVC_CHAT_TOKEN, logs requests without the token that came in the URL', async () => {
    const home = makeTempHome();
    const token = 'log-test-token-0123456789';
    const { child, url, exited, stderr } = await startProgram(home, { args: ['--log'], env: { SVC_CHAT_TOKEN: token } });
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    });
    expect((await fetch(`${url}/api/health?token=${token}`)).status).toBe(200);
    expect((await fetch(`${url}/?token=${token}`)).status).toBe(200);
    const controller = new AbortController();
    const events = await fetch(`${url}/api/events?lastEventId=none&token=${token}`, { signal: controller.signal });
    expect(events.status).toBe(200);
    controller.abort();
    await waitFor(
      'the request log lines',
      () =>
        stderr().includes('"url":"/api/events?lastEventId=none&token=[redacted]"') &&
        stderr().includes('"url":"/api/health?token=[redacted]"'),
    );
    expect(stderr()).not.toContain(token);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a run timeout a timer cannot hold, naming the setting', async () => {
    const home = makeTempHome();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-chat.ts', 'serve', '--demo', '--port', '0'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CHAT_HOME: home, SVC_CHAT_RUN_TIMEOUT_MS: '3000000000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('SVC_CHAT_RUN_TIMEOUT_MS must be at most 2147483647 (got 3000000000).');
  });

  it('refuses a bad port with the usage exit code', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/svc-chat.ts', 'serve', '--port', 'abc'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port must be a port number');
  });
});
