import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { procStatFields } from '../../src/common/process/proc-stat.js';

// CPU time of processes from /proc (Linux): what a process (or a server and the children it
// forks, like PostgreSQL's backends) spent on the cores, for a benchmark that reads it before and
// after a stretch of work. Whole clock ticks (10 ms on most kernels): read over hundreds of jobs.

const TICK_MS = 1000 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100);

interface ProcStat {
  readonly ppid: number;
  /** utime + stime, ms. */
  readonly own: number;
  /** cutime + cstime, ms: its children that exited and were waited for. */
  readonly reaped: number;
}

/** /proc/<pid>/stat, or undefined when the process is gone. */
function stat(pid: number): ProcStat | undefined {
  const fields = procStatFields(pid);
  if (!fields) return undefined;
  const ticks = (index: number) => Number(fields[index]);
  return { ppid: ticks(1), own: (ticks(11) + ticks(12)) * TICK_MS, reaped: (ticks(13) + ticks(14)) * TICK_MS };
}

export const cpuMs = (pid: number): number => stat(pid)?.own ?? Number.NaN;

/** The parent of a process. */
export const parentOf = (pid: number): number | undefined => stat(pid)?.ppid;

/**
 * The CPU ms of a server and its children so far: its own, its children's that are alive, and
 * those of children that exited (the kernel adds them to the parent once reaped), so a delta over
 * a stretch counts a backend that ended in it.
 */
export function treeCpuMs(pid: number): number {
  const parent = stat(pid);
  if (!parent) return Number.NaN;
  let total = parent.own + parent.reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(Number(entry));
    if (child?.ppid === pid) total += child.own;
  }
  return total;
}
