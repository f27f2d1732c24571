import { existsSync, readdirSync, readFileSync } from 'node:fs';

// Where a request's time goes when no one function has it: the CPU time and
// context switches of each thread of a process, from Linux's /proc (elsewhere
// there is none, and the account stays empty). Sampled around a request, it
// shows which threads ran for it and how often one was made to wait for a core.

/** /proc reports thread times in USER_HZ ticks, 1/100 s on Linux. */
const TICK_MS = 10;

interface ThreadTimes {
  readonly cpuTicks: number;
  readonly voluntary: number;
  readonly involuntary: number;
}

const switches = (status: string, field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);

/** Each thread of `pid` by `<name> <tid>` (the process's own thread: `main`), now. */
function threadTimes(pid: number): Map<string, ThreadTimes> {
  const threads = new Map<string, ThreadTimes>();
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return threads;
  for (const tid of readdirSync(dir)) {
    try {
      const stat = readFileSync(`${dir}/${tid}/stat`, 'utf8');
      // After the parenthesized name: state, then utime and stime are the 12th and 13th fields.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const status = readFileSync(`${dir}/${tid}/status`, 'utf8');
      const name = readFileSync(`${dir}/${tid}/comm`, 'utf8').trim();
      threads.set(tid === String(pid) ? 'main (event loop)' : `${name} ${tid}`, {
        cpuTicks: Number(fields[11]) + Number(fields[12]),
        voluntary: switches(status, 'voluntary_ctxt_switches'),
        involuntary: switches(status, 'nonvoluntary_ctxt_switches'),
      });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/** Per-thread totals over the windows it was asked to measure. */
export class ThreadAccount {
  private readonly totals = new Map<string, { cpuTicks: number; voluntary: number; involuntary: number }>();
  private windows = 0;

  constructor(private readonly pid: number) {}

  /** Marks the start of a window; pass the result to `end`. */
  start(): Map<string, ThreadTimes> {
    return threadTimes(this.pid);
  }

  end(started: Map<string, ThreadTimes>): void {
    this.windows += 1;
    for (const [thread, now] of threadTimes(this.pid)) {
      const before = started.get(thread) ?? { cpuTicks: 0, voluntary: 0, involuntary: 0 };
      const total = this.totals.get(thread) ?? { cpuTicks: 0, voluntary: 0, involuntary: 0 };
      total.cpuTicks += now.cpuTicks - before.cpuTicks;
      total.voluntary += now.voluntary - before.voluntary;
      total.involuntary += now.involuntary - before.involuntary;
      this.totals.set(thread, total);
    }
  }

  /** Rows `[thread, CPU ms, voluntary switches, involuntary switches]` per window, busiest first; idle threads left out. */
  rows(): Array<[string, number, number, number]> {
    const per = (value: number) => Number((value / Math.max(1, this.windows)).toFixed(2));
    return [...this.totals]
      .sort((a, b) => b[1].cpuTicks - a[1].cpuTicks || b[1].voluntary - a[1].voluntary)
      .map(([thread, total]): [string, number, number, number] => [
        thread,
        per(total.cpuTicks * TICK_MS),
        per(total.voluntary),
        per(total.involuntary),
      ])
      .filter(([, cpuMs, voluntary, involuntary]) => cpuMs + voluntary + involuntary > 0);
  }
}
