import { ServiceError } from '../../../common/errors.js';
import { runProcess } from '../../../common/process/index.js';
import { locateTool, type MediaTool } from './binaries.js';

// Every ffmpeg and ffprobe run: a child process (never work on the event
// loop) with a time budget (the tree is killed past it), bounded captured
// output, and the caller's cancel. Output files are limited by the caller
// with ffmpeg's own `-fs` (see OUTPUT_LIMIT_BYTES); failures come back as
// FFMPEG_UNAVAILABLE, FFMPEG_TIMEOUT or FFMPEG_FAILED.

/** Budget of one run unless the caller gives one. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** Largest file any run may write (a video, a frame): ffmpeg's `-fs`, checked again after. */
export const OUTPUT_LIMIT_BYTES = 200 * 1024 * 1024;
/** Captured stdout/stderr per run (ffprobe's JSON is a few KB). */
const CAPTURE_BYTES = 1024 * 1024;

export interface ToolRun {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What the run does, for messages ("probe", "poster", ...). */
  readonly what: string;
}

/** Runs ffmpeg or ffprobe with `args` to its end; answers stdout. */
export async function runTool(tool: MediaTool, args: readonly string[], run: ToolRun): Promise<string> {
  const env = run.env ?? process.env;
  const program = locateTool(tool, env);
  if (!program) {
    throw new ServiceError('FFMPEG_UNAVAILABLE', `${tool} was not found: install Debian's ffmpeg (npm run setup:system) or reinstall the npm dependencies (npm ci), or set SVC_${tool.toUpperCase()}.`, {
      details: { tool },
    });
  }
  const timeoutMs = run.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const result = await runProcess({
    file: program.path,
    args: tool === 'ffmpeg' ? ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args] : ['-v', 'error', ...args],
    // Only what the tools need: no credential of ours reaches them.
    env: { PATH: env.PATH, LANG: 'C', HOME: env.HOME },
    timeoutMs,
    maxOutputBytes: CAPTURE_BYTES,
    ...(run.signal ? { signal: run.signal } : {}),
  });
  if (result.aborted && run.signal?.reason instanceof Error) throw run.signal.reason;
  if (result.timedOut) throw new ServiceError('FFMPEG_TIMEOUT', `${tool} (${run.what}) did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped.`, { details: { tool, what: run.what, timeoutMs } });
  if (result.spawnError !== undefined) throw new ServiceError('FFMPEG_UNAVAILABLE', `${tool} could not be started: ${result.spawnError}.`, { details: { tool } });
  if (result.exitCode !== 0) {
    const said = result.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400);
    throw new ServiceError('FFMPEG_FAILED', `${tool} (${run.what}) failed${said ? `: ${said}` : ` (exit ${result.exitCode ?? result.signal})`}.`, { details: { tool, what: run.what, exitCode: result.exitCode } });
  }
  return result.stdout;
}

/** ffmpeg's output-size limit for one output file. */
export const outputLimit = (bytes = OUTPUT_LIMIT_BYTES): string[] => ['-fs', String(bytes)];

/**
 * A time in seconds as a child program reads it: plain decimal, to the microsecond (ffmpeg's
 * resolution). `String(1e-7)` is "1e-7" and `String(1e21)` "1e+21", which ffmpeg refuses; every
 * number the studio formats for a child process goes through here.
 */
export function secondsArg(seconds: number): string {
  if (!Number.isFinite(seconds) || Math.abs(seconds) >= 1e12) throw new RangeError(`${seconds} s is not a time a child process is given.`);
  const fixed = seconds.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
  return fixed === '-0' ? '0' : fixed;
}
