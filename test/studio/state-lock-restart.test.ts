import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireStateLock, holderAlive, StateDirLocked } from '../../src/studio/state-lock.js';
import { makeTempHome } from '../helpers/studio.js';

// Issue 45 item 7: a SIGKILLed studio whose process stays a zombie (its parent
// has not reaped it yet) was read as alive, so an immediate restart said
// "Another studio is running" and exited; a reused pid did the same. The
// holder's /proc entry tells: a zombie, or a process that started at another
// time than the lock records, does not hold the lock.

const LOCK_MODULE = join(import.meta.dirname, '../../src/studio/state-lock.ts');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const procState = (pid: number): string | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
};

const waitFor = async (check: () => boolean, what: string): Promise<void> => {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/**
 * A lock holder whose parent never reaps it: `sh` starts node in the background, prints its pid,
 * then becomes `sleep` (exec), which never waits for children. Killed, the holder stays a zombie
 * for as long as the sleep runs.
 */
async function unreapedHolder(home: string): Promise<{ pid: number; parent: ChildProcess }> {
  const script = `import(${JSON.stringify(LOCK_MODULE)}).then((m) => { m.acquireStateLock(${JSON.stringify(home)}, new Date().toISOString()); console.log("locked"); setInterval(() => {}, 1000); });`;
  const parent = spawn('sh', ['-c', `"$NODE" --import tsx -e "$HOLDER" & echo $!; exec sleep 60`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE: process.execPath, HOLDER: script },
  });
  cleanups.push(() => parent.kill('SIGKILL'));
  let output = '';
  parent.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('locked'), 'the holder to take the lock');
  return { pid: Number(output.split('\n')[0]), parent };
}

describe.skipIf(process.platform !== 'linux')('the state lock after a crash', () => {
  it('a holder killed but not yet reaped (a zombie) does not hold the lock: a restart right after starts', async () => {
    const home = makeTempHome('svc-lock-zombie-');
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const { pid } = await unreapedHolder(home);
    expect(JSON.parse(readFileSync(join(home, 'studio.lock'), 'utf8'))).toMatchObject({ pid });
    // Alive, it holds the lock.
    expect(() => acquireStateLock(home, new Date().toISOString())).toThrow(StateDirLocked);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => procState(pid) === 'Z', 'the holder to be a zombie');
    const lock = acquireStateLock(home, new Date().toISOString());
    expect(JSON.parse(readFileSync(join(home, 'studio.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('a lock naming a live process that started at another time (a reused pid) is stale; the right start time holds', () => {
    const home = makeTempHome('svc-lock-reused-');
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    cleanups.push(() => sleeper.kill('SIGKILL'));
    const pid = sleeper.pid as number;
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    expect(holderAlive({ pid, processStart: start })).toBe(true);
    expect(holderAlive({ pid, processStart: String(Number(start) + 1) })).toBe(false);
    // An older build's lock (no start time) with a live process still holds.
    expect(holderAlive({ pid })).toBe(true);
    writeFileSync(
      join(home, 'studio.lock'),
      JSON.stringify({ pid, startedAt: '2026-01-01T00:00:00.000Z', processStart: String(Number(start) + 1) }),
    );
    const lock = acquireStateLock(home, new Date().toISOString());
    expect(JSON.parse(readFileSync(join(home, 'studio.lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
      processStart: expect.any(String),
    });
    lock.release();
    writeFileSync(join(home, 'studio.lock'), JSON.stringify({ pid, startedAt: '2026-01-01T00:00:00.000Z', processStart: start }));
    expect(() => acquireStateLock(home, new Date().toISOString())).toThrow(StateDirLocked);
  });
});
