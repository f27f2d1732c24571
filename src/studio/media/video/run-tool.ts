import { MediaToolError, runMediaTool, type MediaTool, type MediaToolFailure, type ToolRun } from '../../../common/media/index.js';
import { ServiceError } from '../../errors.js';

// The studio's ffmpeg and ffprobe runs: common/media's runner, its failures
// as the studio's codes (FFMPEG_UNAVAILABLE, FFMPEG_TIMEOUT, FFMPEG_FAILED).

export { outputLimit, OUTPUT_LIMIT_BYTES, DEFAULT_TOOL_TIMEOUT_MS, type ToolRun } from '../../../common/media/index.js';

const CODES = { unavailable: 'FFMPEG_UNAVAILABLE', timeout: 'FFMPEG_TIMEOUT', failed: 'FFMPEG_FAILED' } as const satisfies Record<MediaToolFailure, string>;

/** Runs ffmpeg or ffprobe with `args` to its end; answers stdout. */
export async function runTool(tool: MediaTool, args: readonly string[], run: ToolRun): Promise<string> {
  try {
    return await runMediaTool(tool, args, run);
  } catch (error) {
    if (error instanceof MediaToolError) throw new ServiceError(CODES[error.failure], error.message, { details: { ...error.details } });
    throw error;
  }
}
