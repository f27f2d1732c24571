import { spawn, type ChildProcess } from 'node:child_process';
import { findExecutable } from './find-executable.js';
import { signalProcessGroup } from './process-tree.js';

/** After SIGTERM, how long a process tree gets before SIGKILL (default). */
export const DEFAULT_KILL_GRACE_MS = 3000;
/** After the program exits, how long its stdout/stderr may stay open (held by a descendant) (default). */
export const DEFAULT_EXIT_DRAIN_MS = 1000;

export interface TreeProcessOptions {
  /** A path, or a bare name looked up on `env.PATH` by `findExecutable` (the one rule). */
  file: string;
  args: readonly string[];
  cwd?: string;
  /** The program's whole environment (nothing of ours is added); default: this process's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stopped (tree killed) when still running after this long; 0 or absent: no limit. */
  timeoutMs?: number;
  killGraceMs?: number;
  exitDrainMs?: number;
  /** Aborting stops the program like `stop()`. */
  signal?: AbortSignal;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Buffer;
  onStdout?(chunk: Buffer): void;
  onStderr?(chunk: Buffer): void;
}

/** Why a running program was stopped by us: a timeout, an abort signal, or `stop()`. */
export type StopCause = 'timeout' | 'aborted' | 'stopped';

export interface TreeProcessEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The program could not be started: ENOENT (not found, also by the PATH lookup), EACCES... */
  spawnError?: string;
  /** Set when we stopped the program while it ran; the first stop wins. */
  stoppedBy?: StopCause;
}

/**
 * A program running as the leader of its own process group (spawned detached,
 * without a shell), so stopping it reaches every descendant that stayed in the
 * group. Stop = SIGTERM to the group, SIGKILL after the grace period; when the
 * program exits, the rest of its group is SIGKILLed too. The long-running,
 * streaming form: output goes to callbacks as it comes (see runProcess for
 * the one-shot form that captures it).
 */
export class TreeProcess {
  readonly pid: number | undefined;
  readonly finished: Promise<TreeProcessEnd>;
  private readonly child: ChildProcess | undefined;
  private stopCause: StopCause | undefined;
  private exited = false;
  private settled = false;
  /** Set once the program exited: ends the wait for its output to close. */
  private endDrain: (() => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly killGraceMs: number;
  private readonly onAbort = () => this.stopWith('aborted');

  constructor(private readonly options: TreeProcessOptions) {
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const env = options.env ?? process.env;
    const resolved = findExecutable(options.file, env.PATH, options.cwd);
    let resolveEnd!: (end: TreeProcessEnd) => void;
    this.finished = new Promise((resolve) => (resolveEnd = resolve));
    if (resolved === undefined) {
      this.pid = undefined;
      queueMicrotask(() => this.settle(resolveEnd, { exitCode: null, signal: null, spawnError: 'ENOENT' }));
      return;
    }

    this.child = spawn(resolved, [...options.args], {
      cwd: options.cwd,
      env: env as NodeJS.ProcessEnv,
      shell: false,
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.pid = this.child.pid;
    const child = this.child;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let spawnError: string | undefined;
    const finish = () => this.settle(resolveEnd, { exitCode, signal: exitSignal, spawnError, stoppedBy: this.stopCause });

    if (options.input !== undefined) {
      child.stdin?.on('error', () => {});
      child.stdin?.end(options.input);
    }
    child.stdout?.on('data', (chunk: Buffer) => options.onStdout?.(chunk));
    child.stderr?.on('data', (chunk: Buffer) => options.onStderr?.(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        spawnError = error.code ?? error.message;
        finish();
      }
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      exitCode = code;
      exitSignal = signal;
      // A descendant may hold stdout open, even one in another process group that killing
      // ours cannot reach: give it a moment, then stop reading and end regardless.
      this.endDrain = () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      };
      this.timers.push(setTimeout(this.endDrain, options.exitDrainMs ?? DEFAULT_EXIT_DRAIN_MS));
    });
    child.on('close', finish);

    if (this.pid !== undefined) {
      if (options.timeoutMs) this.timers.push(setTimeout(() => this.stopWith('timeout'), options.timeoutMs));
      if (options.signal?.aborted) queueMicrotask(this.onAbort);
      else options.signal?.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** A stop (timeout, abort, stop()) is under way or done: output from now on is not part of the run. */
  get stopping(): boolean {
    return this.stopCause !== undefined;
  }

  /**
   * Stops the program: SIGTERM to the tree, SIGKILL after the grace period.
   * True when this call stopped a running program; false when a stop is
   * already under way, the program never started, or it had already exited on
   * its own (then the wait for its output ends now).
   */
  stop(): boolean {
    return this.stopWith('stopped');
  }

  /** SIGKILLs the whole tree at once, synchronously (the caller is exiting: no grace, no waiting). */
  killNow(): void {
    if (this.pid !== undefined) signalProcessGroup(this.pid, 'SIGKILL');
  }

  private stopWith(cause: StopCause): boolean {
    if (this.settled) return false;
    if (this.exited) {
      this.endDrain?.();
      return false;
    }
    if (this.stopCause || this.pid === undefined) return false;
    this.stopCause = cause;
    signalProcessGroup(this.pid, 'SIGTERM');
    this.timers.push(setTimeout(() => this.killNow(), this.killGraceMs));
    return true;
  }

  private settle(resolve: (end: TreeProcessEnd) => void, end: TreeProcessEnd): void {
    if (this.settled) return;
    this.settled = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    // Leftovers of the tree (background children) go with the program.
    this.killNow();
    resolve(end);
  }
}

/** Starts a program in its own process group (see TreeProcess). */
export const startTreeProcess = (options: TreeProcessOptions): TreeProcess => new TreeProcess(options);
