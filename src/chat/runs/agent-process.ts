import { TreeProcess } from '../../common/process/tree-process.js';
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
 * One agent program run on the common process runner (its own process group,
 * so stopping it kills its whole tree; bounded by the run timeout), stdout
 * read as NDJSON through the adapter's normalizer.
 */
export class AgentProcess {
  readonly pid: number | undefined;
  readonly finished: Promise<RunEnd>;
  private readonly tree: TreeProcess;
  private stopped: StopRequest | undefined;

  constructor(options: AgentProcessOptions) {
    const reader = new NdjsonReader({
      maxLineBytes: options.maxLineBytes,
      onObject: (object) => {
        const events = options.normalizer.accept(object);
        // After a stop (ours or the timeout), late output is not part of the run any more.
        if (!this.tree.stopping) for (const event of events) options.onEvent(event);
      },
      onSkip: options.onSkip,
    });
    let stderrTail = '';
    this.tree = new TreeProcess({
      file: options.program.file,
      args: [...options.program.prefixArgs, ...options.args],
      cwd: options.cwd,
      env: options.env,
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs,
      exitDrainMs: options.exitDrainMs,
      onStdout: (chunk) => reader.push(chunk),
      onStderr: (chunk) => {
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-options.stderrTailBytes);
      },
    });
    this.pid = this.tree.pid;
    this.finished = this.tree.finished.then((end) => {
      reader.end();
      const stopped =
        this.stopped ??
        (end.stoppedBy === 'timeout' ? { status: 'timeout' as const, reason: `no result within ${options.timeoutMs} ms` } : undefined);
      const done = resolveDone({
        stopped,
        spawnError: end.spawnError,
        report: options.normalizer.report,
        exitCode: end.exitCode,
        signal: end.signal,
        stderrTail,
      });
      return { done, exitCode: end.exitCode, signal: end.signal, stats: reader.stats };
    });
  }

  /**
   * Stops the run: SIGTERM to the tree, SIGKILL after the grace period. The
   * first stop's status wins. Returns whether this call stopped it: false when
   * a stop (or the timeout) is already under way, when the program never
   * started, or when it had already exited on its own (its own outcome
   * stands; the run ends now instead of waiting out the drain).
   */
  stop(request: StopRequest): boolean {
    const stopped = this.tree.stop();
    if (stopped) this.stopped = request;
    return stopped;
  }

  /** SIGKILLs the whole tree at once, synchronously (the server is exiting: no grace, no waiting). */
  killNow(): void {
    this.tree.killNow();
  }
}
