// ffmpeg and ffprobe for every room that runs them (the studio's video, the
// simulators' renders): located once, run as child processes with a time and
// size limit, in a private temporary directory.
export { locateTool, type LocatedTool, type MediaTool } from './binaries.js';
export {
  runMediaTool,
  outputLimit,
  MediaToolError,
  OUTPUT_LIMIT_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  type MediaToolFailure,
  type ToolRun,
} from './run-tool.js';
export { withTempDir } from './temp-dir.js';
export { nearestRatio } from './ratio.js';
