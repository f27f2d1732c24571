import { spawn, type ChildProcess } from 'node:child_process';
import type { OutputEvent, StreamNormalizer, DoneEvent } from '../agents/types.js';
import { NdjsonReader, type NdjsonStats } from './ndjson-reader.js';
import { resolveDone, type StopRequest } from './run-outcome.js';

/** How to start a program: the file to execute and arguments that go before the adapter's. */
export interface AgentProgram {
  readonly file: string;
  /** E.g. the script path when `file` is node running a fake agent. */
  readonly prefixArgs: readonly string[];
}

export interface AgentProcessOptions {
  program: AgentProgram;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  killGraceMs: number;
  exitDrainMs: number;
  maxLineBytes: number;
  stderrTailBytes: number;
  normalizer: StreamNormalizer;
  onEvent(event: OutputEvent): void;
  onSkip?(kind: 'skipped' | 'oversized', sample: string): void;
}

export interface RunEnd {
  done: DoneEvent;
  exitCode: number | null;
  signal: string | null;
  stats: NdjsonStats;
}

/**
 * One agent program run: spawned without a shell in its own process group
 * (so stopping it kills its whole tree), stdout read as NDJSON through the
 * adapter's normalizer, bounded by a timeout.
 */
export class AgentProcess {
  readonly pid: number | undefined;
  readonly finished: Promise<RunEnd>;
  private readonly child: ChildProcess;
  private stopped: StopRequest | undefined;
  private exited = false;
  /** Set once the program exited: ends the run without waiting for its stdout to close. */
  private endDrain: (() => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly options: AgentProcessOptions) {
    const reader = new NdjsonReader({
      maxLineBytes: options.maxLineBytes,
      onObject: (object) => {
        const events = options.normalizer.accept(object);
        // After a stop, late output is not part of the run any more.
        if (!this.stopped) for (const event of events) options.onEvent(event);
      },
      onSkip: options.onSkip,
    });
    let stderrTail = '';
    let exitCode: number | null = null;
    let signal: string | null = null;
    let spawnError: string | undefined;

    this.child = spawn(options.program.file, [...options.program.prefixArgs, ...options.args], {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.pid = this.child.pid;

    this.finished = new Promise<RunEnd>((resolve) => {
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        for (const timer of this.timers) clearTimeout(timer);
        // Leftovers of the tree (background children) go with the run.
        this.killTree('SIGKILL');
        reader.end();
        const done = resolveDone({ stopped: this.stopped, spawnError, report: options.normalizer.report, exitCode, signal, stderrTail });
        resolve({ done, exitCode, signal, stats: reader.stats });
      };
      this.child.stdout?.on('data', (chunk: Buffer) => reader.push(chunk));
      this.child.stderr?.on('data', (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-options.stderrTailBytes);
      });
      this.child.on('error', (error: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined) {
          spawnError = error.code ?? error.message;
          finish();
        }
      });
      this.child.on('exit', (code, exitSignal) => {
        this.exited = true;
        exitCode = code;
        signal = exitSignal;
        // A descendant may hold stdout open, even one in another process group that killing
        // ours cannot reach: give it a moment, then stop reading and end the run regardless.
        this.endDrain = () => {
          this.child.stdout?.destroy();
          this.child.stderr?.destroy();
          finish();
        };
        this.timers.push(setTimeout(this.endDrain, options.exitDrainMs));
      });
      this.child.on('close', finish);
    });

    if (this.pid !== undefined) {
      this.timers.push(setTimeout(() => this.stop({ status: 'timeout', reason: `no result within ${options.timeoutMs} ms` }), options.timeoutMs));
    }
  }

  /**
   * Stops the run: SIGTERM to the tree, SIGKILL after the grace period. The
   * first stop's status wins. Returns whether this call stopped it: false when
   * a stop is already under way, when the program never started, or when it
   * had already exited on its own (its own outcome stands; the run ends now
   * instead of waiting out the drain).
   */
  stop(request: StopRequest): boolean {
    if (this.exited) {
      this.endDrain?.();
      return false;
    }
    if (this.stopped || this.pid === undefined) return false;
    this.stopped = request;
    this.killTree('SIGTERM');
    this.timers.push(setTimeout(() => this.killTree('SIGKILL'), this.options.killGraceMs));
    return true;
  }

  /** SIGKILLs the whole tree at once, synchronously (the server is exiting: no grace, no waiting). */
  killNow(): void {
    this.killTree('SIGKILL');
  }

  private killTree(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      // Negative pid: the whole process group the detached child leads.
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}
