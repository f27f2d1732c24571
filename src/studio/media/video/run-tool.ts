import { MediaToolError, runMediaTool, type MediaTool, type MediaToolFailure, type ToolRun } from '../../../common/media/index.js';
import { ServiceError } from '../../errors.js';

// The studio's ffmpeg and ffprobe runs: common/media's runner, its failures
// as the studio's codes (FFMPEG_UNAVAILABLE, FFMPEG_TIMEOUT, FFMPEG_FAILED).

export { outputLimit, OUTPUT_LIMIT_BYTES, DEFAULT_TOOL_TIMEOUT_MS, type ToolRun } from '../../../common/media/index.js';

const CODES = { unavailable: 'FFMPEG_UNAVAILABLE', timeout: 'FFMPEG_TIMEOUT', failed: 'FFMPEG_FAILED' } as const satisfies Record<
  MediaToolFailure,
  string
>;

/** Runs ffmpeg or ffprobe with `args` to its end; answers stdout. */
export async function runTool(tool: MediaTool, args: readonly string[], run: ToolRun): Promise<string> {
  try {
    return await runMediaTool(tool, args, run);
  } catch (error) {
    if (error instanceof MediaToolError) throw new ServiceError(CODES[error.failure], error.message, { details: { ...error.details } });
    throw error;
  }
}

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
