import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempHome } from '../helpers/studio.js';
import { runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';

// Issue 29, item 15: a second studio on the same state dir refuses to start,
// naming the one that runs (unless --shared-home); a lock left by a dead
// process is taken over; a refused svc-chat start creates no state dir.

const homes: string[] = [];
const running: RunningSvc[] = [];
afterAll(async () => {
  for (const studio of running) await studio.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

const home = () => {
  const dir = makeTempHome('svc-lock-');
  homes.push(dir);
  return dir;
};

describe('the state-dir lock', () => {
  it('a second svc serve on the same SVC_HOME refuses, naming the first; --shared-home runs beside it', async () => {
    const dir = home();
    const first = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir });
    running.push(first);
    const second = await runSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir }, 20_000);
    expect(second.code).toBe(2);
    const refusal = JSON.parse(second.stdout) as {
      error: { code: string; message: string; details: { holder: { pid: number; url: string } } };
    };
    expect(refusal.error.code).toBe('STATE_DIR_LOCKED');
    expect(refusal.error.message).toContain(`pid ${String(first.first.pid)}`);
    expect(refusal.error.message).toContain(String(first.first.url));
    expect(refusal.error.details.holder).toMatchObject({ pid: first.first.pid, url: first.first.url });
    const human = await runSvc(['serve', '--port', '0'], { SVC_HOME: dir }, 20_000);
    expect(human.code).toBe(2);
    expect(human.stderr.trim().split('\n')).toHaveLength(1);
    expect(human.stderr).toMatch(/Another studio is running on .*: pid \d+ at http:\/\/127\.0\.0\.1:\d+/);

    const shared = await startSvc(['serve', '--port', '0', '--shared-home', '--json'], { SVC_HOME: dir });
    running.push(shared);
    expect(shared.first.url).not.toBe(first.first.url);

    // The first stops cleanly: the lock goes with it, and the next start takes it.
    await first.stop();
    expect(existsSync(join(dir, 'studio.lock'))).toBe(false);
    const next = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir });
    running.push(next);
    expect(JSON.parse(readFileSync(join(dir, 'studio.lock'), 'utf8'))).toMatchObject({ pid: next.first.pid, url: next.first.url });
    await next.stop();
  });

  it('a lock whose process is gone (a SIGKILL) is taken over', async () => {
    const dir = home();
    const killed = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir });
    await killed.stop('SIGKILL');
    expect(existsSync(join(dir, 'studio.lock'))).toBe(true);
    const next = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir });
    running.push(next);
    expect(next.first.pid).not.toBe(killed.first.pid);
    await next.stop();
  });

  it('an unreadable lock just created is another studio starting (refused); an old one is stale (taken over)', async () => {
    const dir = home();
    const lock = join(dir, 'studio.lock');
    writeFileSync(lock, '');
    const refused = await runSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir }, 20_000);
    expect(refused.code).toBe(2);
    expect((JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'STATE_DIR_LOCKED',
      message: expect.stringContaining('Another studio is starting'),
    });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const next = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: dir });
    running.push(next);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: next.first.pid });
    await next.stop();
  });
});

/** Runs svc-chat through tsx; resolves with its exit code and output. */
function runChat(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../src/cli/svc-chat.ts'), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stderr });
    });
  });
}

describe('svc-chat serve refused', () => {
  it('creates no state dir when its bind is refused', async () => {
    const parent = home();
    const chatHome = join(parent, 'chat-state');
    mkdirSync(parent, { recursive: true });
    const run = await runChat(['serve', '--host', '0.0.0.0', '--port', '0', '--home', chatHome], { SVC_CHAT_TOKEN: '' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/exposes the server beyond this machine/);
    expect(existsSync(chatHome)).toBe(false);
  });
});
