import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';

// One studio per state dir: `svc serve` takes `studio.lock` in SVC_HOME before
// it opens anything there (the database, recovery of the last run's jobs), so
// a second studio started on the same dir by mistake refuses, naming the one
// that runs (its pid, URL and start time) instead of sharing its queue
// unannounced. The lock names a process, not a kernel lock: a lock whose
// process is gone (a crash, SIGKILL) is stale and taken over. Several studios
// over one state dir on purpose (the job queue is built for it: leases,
// claims) opt in with `sharedHome` (`svc serve --shared-home`,
// SVC_SHARED_HOME=1), and then take no lock.

export interface LockHolder {
  readonly pid: number;
  readonly startedAt: string;
  /** Set once the holder bound its port. */
  readonly url?: string;
}

export class StateDirLocked extends Error {
  constructor(
    readonly lockFile: string,
    readonly holder: LockHolder,
  ) {
    super(
      (holder.pid
        ? `Another studio is running on ${join(lockFile, '..')}: pid ${holder.pid}${holder.url ? ` at ${holder.url}` : ''}, started ${holder.startedAt}. `
        : `Another studio is starting on ${join(lockFile, '..')} (its lock file is being written). `) +
        'Stop it first, use another SVC_HOME, or pass --shared-home to run both on one state dir.',
    );
    this.name = 'StateDirLocked';
  }
}

export interface StateLock {
  /** Records the URL the holder bound, for the message a second studio shows. */
  advertise(url: string): void;
  release(): void;
}

/** Whether a process of that id exists (EPERM: it does, owned by someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && holder.pid > 0 ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** A lock file this young that cannot be read is being written by a studio starting now: held, not stale. */
const WRITING_GRACE_MS = 5_000;

const youngerThan = (file: string, ms: number): boolean => Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) < ms;

/** Takes the lock of `home` (which exists), or throws StateDirLocked naming the studio that holds it. */
export function acquireStateLock(home: string, startedAt: string): StateLock {
  const file = join(home, 'studio.lock');
  const mine: LockHolder = { pid: process.pid, startedAt };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      // A live holder refuses; a dead one (crash) or an old torn file is stale and taken over. A fresh
      // unreadable one is another studio between creating the file and writing it: it holds the lock.
      if (holder && alive(holder.pid)) throw new StateDirLocked(file, holder);
      if (!holder && youngerThan(file, WRITING_GRACE_MS)) throw new StateDirLocked(file, { pid: 0, startedAt: new Date().toISOString() });
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(mine));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      advertise(url) {
        if (!released) writeFileAtomic(file, JSON.stringify({ ...mine, url }), 0o600);
      },
      release() {
        if (released) return;
        released = true;
        // Only our own lock goes (a stale-lock takeover by another process may have replaced it).
        if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
      },
    };
  }
  const holder = readHolder(file);
  throw new StateDirLocked(file, holder ?? { pid: 0, startedAt: 'unknown' });
}
