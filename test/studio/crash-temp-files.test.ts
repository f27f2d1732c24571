import { existsSync, readdirSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAtomicTempName } from '../../src/common/atomic-file.js';
import { TERMINAL_JOB_STATES, type JobRecord } from '../../src/studio/api/index.js';
import { makeTempHome } from '../helpers/studio.js';
import { startSvc, type RunningSvc } from '../helpers/svc.js';

// The bar, with real processes: the built `svc serve` is killed with
// SIGKILL while an image or thumbnail write is in progress (its temp file
// `.<name>.<boot id>.<random>.tmp` on disk), restarted at once on the same
// SVC_HOME, and leaves no temp file.
//
// Catching a write in progress: a watch on generated/ and .thumbs/ sees each
// temp file appear; the studio is then stopped (SIGSTOP, every thread), so what
// is on disk cannot change while the test looks. A temp file still there: the
// kill comes now. None (the rename won): SIGCONT, and wait for the next write.

/** Concurrent generations per attempt: each writes an image and then a thumbnail. */
const JOBS = 8;
const ATTEMPTS = 3;

const home = makeTempHome('svc-crash-tmp-');
const dirs = [join(home, 'generated'), join(home, 'generated', '.thumbs')];
let simulators: RunningSvc;
let simEnv: Record<string, string>;
const running: RunningSvc[] = [];

const startStudioProcess = async (): Promise<{ studio: RunningSvc; url: string }> => {
  const studio = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: home, ...simEnv }, 20_000, { built: true });
  running.push(studio);
  return { studio, url: String(studio.first.url) };
};

const tempFiles = (): string[] =>
  dirs.flatMap((dir) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter(isAtomicTempName)
          .map((name) => join(dir, name))
      : [],
  );

/** Sends SIGSTOP and waits until every thread of `pid` is stopped (one in a write finishes its system call first). */
async function freeze(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const state = (tid: string) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2];
  };
  for (let check = 0; check < 5000; check += 1) {
    if (readdirSync(`/proc/${pid}/task`).every((tid) => ['T', 't'].includes(state(tid)))) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`studio ${pid} did not stop after SIGSTOP`);
}

/** Watches for temp files; SIGKILLs the studio the moment one is on disk. `close` says which were (none: missed). */
function killMidWrite(pid: number): { killed: Promise<string[]>; close(): Promise<string[] | undefined> } {
  let done = false;
  let caught: string[] | undefined;
  let onKilled!: (temps: string[]) => void;
  const killed = new Promise<string[]>((resolve) => (onKilled = resolve));
  // One look at a time, in the order the events came.
  let looking: Promise<void> = Promise.resolve();
  const look = async () => {
    if (done || tempFiles().length === 0) return;
    await freeze(pid);
    const temps = tempFiles();
    if (temps.length === 0) {
      process.kill(pid, 'SIGCONT');
      return;
    }
    process.kill(pid, 'SIGKILL');
    done = true;
    caught = temps;
    onKilled(temps);
  };
  const watchers: FSWatcher[] = dirs.map((dir) =>
    watch(dir, (_event, name) => {
      if (!done && name && isAtomicTempName(name)) looking = looking.then(look);
    }),
  );
  return {
    killed,
    async close() {
      for (const watcher of watchers) watcher.close();
      await looking;
      done = true;
      return caught;
    },
  };
}

/** Resolves when every job has ended (every image written), or when the studio stops answering. */
async function everyJobEnded(url: string, requestIds: string[]): Promise<void> {
  try {
    for (const requestId of requestIds) {
      for (;;) {
        const job = (await (await fetch(`${url}/api/jobs/${requestId}`)).json()) as JobRecord;
        if (TERMINAL_JOB_STATES.includes(job.state)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } catch {
    // The studio was killed.
  }
}

beforeAll(async () => {
  if (!existsSync(join(import.meta.dirname, '../../dist/bundle/svc.js')))
    throw new Error('the built program is missing: run `npm run build` (CI builds before the tests)');
  simulators = await startSvc(['sim', 'serve'], {}, 20_000, { built: true });
  simEnv = (simulators.first as { env: Record<string, string> }).env;
});

afterAll(async () => {
  for (const child of running) await child.stop('SIGKILL');
  await simulators?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('a SIGKILL while writes are in progress, then an immediate restart', () => {
  it('leaves no temp file', async () => {
    let temps: string[] | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS && !temps; attempt += 1) {
      const { studio, url } = await startStudioProcess();
      const pid = studio.child.pid as number;
      const watcher = killMidWrite(pid);
      const requestIds = Array.from({ length: JOBS }, (_, index) => `crash-${attempt}-${index}`);
      for (const requestId of requestIds) {
        const response = await fetch(`${url}/api/generate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            prompt: `a harbour at dusk, number ${requestId}`,
            provider: 'api',
            size: '2048x2048',
            async: true,
            requestId,
          }),
        }).catch(() => undefined);
        // Accepted, or the studio is already gone: a write of an earlier job was caught.
        if (response) expect(response.status, await response.text().catch(String)).toBe(202);
      }
      await Promise.race([watcher.killed, everyJobEnded(url, requestIds)]);
      temps = await watcher.close();
      // Caught: the process is gone (reaped) before the restart; missed: a clean stop, and another try.
      await studio.stop(temps ? 'SIGKILL' : 'SIGTERM');
    }
    if (!temps)
      throw new Error(
        `No write was caught in progress in ${ATTEMPTS} attempts of ${JOBS} concurrent generations: the test proves nothing.`,
      );

    // The precondition: the crash left temp files on disk.
    expect(temps.length).toBeGreaterThan(0);
    for (const temp of temps) expect(existsSync(temp), temp).toBe(true);

    // An immediate restart on the same SVC_HOME removes them (its start-up sweep): none is left, and no new one lingers.
    const { url } = await startStudioProcess();
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    await vi.waitFor(() => expect(tempFiles()).toEqual([]), { timeout: 10_000, interval: 50 });
    for (const temp of temps) expect(existsSync(temp), temp).toBe(false);
  }, 90_000);
});
