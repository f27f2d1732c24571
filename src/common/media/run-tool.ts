import { runProcess } from '../process/index.js';
import { locateTool, type MediaTool } from './binaries.js';

// Every ffmpeg and ffprobe run: a child process (never work on the event
// loop) with a time budget (the tree is killed past it), bounded captured
// output, and the caller's cancel. Output files are limited by the caller
// with ffmpeg's own `-fs` (see OUTPUT_LIMIT_BYTES). A failure is a
// MediaToolError saying why; the studio turns it into its FFMPEG_* codes
// (studio/media/video/run-tool.ts), a simulator answers it as a fault.

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

/** Why a run failed: no program, out of time, or the program failed. */
export type MediaToolFailure = 'unavailable' | 'timeout' | 'failed';

export class MediaToolError extends Error {
  constructor(
    readonly failure: MediaToolFailure,
    message: string,
    readonly details: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'MediaToolError';
  }
}

/** Runs ffmpeg or ffprobe with `args` to its end; answers stdout. A cancel rethrows the signal's reason. */
export async function runMediaTool(tool: MediaTool, args: readonly string[], run: ToolRun): Promise<string> {
  const env = run.env ?? process.env;
  const program = locateTool(tool, env);
  if (!program) {
    throw new MediaToolError(
      'unavailable',
      `${tool} was not found: install Debian's ffmpeg (npm run setup:system) or reinstall the npm dependencies (npm ci), or set SVC_${tool.toUpperCase()}.`,
      { tool },
    );
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
  if (result.timedOut)
    throw new MediaToolError('timeout', `${tool} (${run.what}) did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped.`, {
      tool,
      what: run.what,
      timeoutMs,
    });
  if (result.spawnError !== undefined)
    throw new MediaToolError('unavailable', `${tool} could not be started: ${result.spawnError}.`, { tool });
  if (result.exitCode !== 0) {
    const said = result.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400);
    throw new MediaToolError(
      'failed',
      `${tool} (${run.what}) failed${said ? `: ${said}` : ` (exit ${result.exitCode ?? result.signal})`}.`,
      { tool, what: run.what, exitCode: result.exitCode },
    );
  }
  return result.stdout;
}

/** ffmpeg's output-size limit for one output file. */
export const outputLimit = (bytes = OUTPUT_LIMIT_BYTES): string[] => ['-fs', String(bytes)];
