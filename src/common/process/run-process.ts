import { TreeProcess, type TreeProcessOptions } from './tree-process.js';

/** Output kept per stream by default; more is dropped and flagged. */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface RunProcessOptions extends Omit<TreeProcessOptions, 'onStdout' | 'onStderr' | 'timeoutMs'> {
  /** The time budget: past it the tree is killed and `timedOut` is set. */
  timeoutMs: number;
  /** Bytes kept of each of stdout and stderr (the first ones); default 16 MiB. */
  maxOutputBytes?: number;
}

export interface RunProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Stopped because the time budget ran out. */
  timedOut: boolean;
  /** Stopped because the caller's signal was aborted. */
  aborted: boolean;
  /** Could not be started (ENOENT: not found on PATH, EACCES...). */
  spawnError?: string;
  /** More output came than `maxOutputBytes` on that stream (the rest was dropped). */
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** Collects the first `max` bytes of a stream. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.bytes;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.bytes += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Runs a program to its end within a time budget and captures its output:
 * the one-shot form (a local generation program, a probe). The program leads
 * its own process group; a timeout or an abort kills the whole tree (SIGTERM,
 * SIGKILL after the grace period). Never rejects: a program that cannot be
 * started answers `spawnError`.
 */
export async function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const stdout = new Capture(max);
  const stderr = new Capture(max);
  const running = new TreeProcess({ ...options, onStdout: (chunk) => stdout.push(chunk), onStderr: (chunk) => stderr.push(chunk) });
  const end = await running.finished;
  return {
    exitCode: end.exitCode,
    signal: end.signal,
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut: end.stoppedBy === 'timeout',
    aborted: end.stoppedBy === 'aborted',
    ...(end.spawnError !== undefined && { spawnError: end.spawnError }),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
  };
}
