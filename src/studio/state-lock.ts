import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';
import { procStatFields } from '../common/process/proc-stat.js';

// One studio per state dir: `svc serve` takes `studio.lock` in SVC_HOME before
// it opens anything there (the database, recovery of the last run's jobs), so
// a second studio started on the same dir by mistake refuses, naming the one
// that runs (its pid, URL and start time) instead of sharing its queue
// unannounced. The lock names a process, not a kernel lock: a lock whose
// process is gone (a crash, SIGKILL) is stale and taken over. "Gone" is read
// from what the kernel ends with the process: on Linux its /proc entry, whose
// state says a zombie (killed, not yet reaped by a late supervisor or init)
// and whose start time tells the holder from a later process given the same
// pid; so a supervisor's immediate restart after a SIGKILL always starts.
// Elsewhere a signal 0 probe is all there is. Several studios
// over one state dir on purpose (the job queue is built for it: leases,
// claims) opt in with `sharedHome` (`svc serve --shared-home`,
// SVC_SHARED_HOME=1), and then take no lock.

export interface LockHolder {
  readonly pid: number;
  readonly startedAt: string;
  /** The holder's start time as the kernel counts it (/proc/<pid>/stat field 22, clock ticks since boot); Linux only. */
  readonly processStart?: string;
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

/** A process as /proc shows it: its state letter and start time; undefined when it has no entry (or there is no /proc). */
function procStat(pid: number): { state: string; start: string } | undefined {
  const fields = procStatFields(pid);
  return fields && { state: fields[0] ?? '', start: fields[19] ?? '' };
}

const hasProc = (): boolean => statSync('/proc/self/stat', { throwIfNoEntry: false }) !== undefined;

/** This process's kernel start time, recorded in the lock (undefined without /proc). */
const ownProcessStart = (): string | undefined => procStat(process.pid)?.start;

/**
 * Whether the lock's holder still runs: with /proc, its entry exists, it is not a zombie (Z) or
 * dead (X), and it started when the lock says (a different start is another process with a reused
 * pid). Without /proc: a signal 0 probe (EPERM: it exists, owned by someone else).
 */
export function holderAlive(holder: Pick<LockHolder, 'pid' | 'processStart'>): boolean {
  if (hasProc()) {
    const stat = procStat(holder.pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
    return holder.processStart === undefined || holder.processStart === stat.start;
  }
  try {
    process.kill(holder.pid, 0);
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
  const processStart = ownProcessStart();
  const mine: LockHolder = { pid: process.pid, startedAt, ...(processStart ? { processStart } : {}) };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      // A live holder refuses; a dead one (crash) or an old torn file is stale and taken over. A fresh
      // unreadable one is another studio between creating the file and writing it: it holds the lock.
      if (holder && holderAlive(holder)) throw new StateDirLocked(file, holder);
      if (!holder && youngerThan(file, WRITING_GRACE_MS)) throw new StateDirLocked(file, { pid: 0, startedAt: new Date().toISOString() });
      // Removed only while it still names the stale holder: another studio taking it over at the same
      // moment may have put its own lock there already.
      const again = readHolder(file);
      if (again?.pid !== holder?.pid || again?.startedAt !== holder?.startedAt) continue;
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
