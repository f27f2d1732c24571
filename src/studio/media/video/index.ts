// ffmpeg and ffprobe for the studio (and the simulator's renders): located
// once, run as child processes with a time and size limit.
export { locateTool, type LocatedTool, type MediaTool } from './binaries.js';
export { runTool, outputLimit, OUTPUT_LIMIT_BYTES, DEFAULT_TOOL_TIMEOUT_MS, type ToolRun } from './run-tool.js';
export { probeVideo, checkVideoDecodes, looksLikeMp4, type VideoFacts } from './probe.js';
export { extractFrame, type FramePosition } from './frames.js';
export { embedVideoMetadata, readVideoMetadata } from './mp4-metadata.js';
export { concatVideos } from './concat.js';
export { withTempDir } from './temp-dir.js';
export { nearestRatio } from './ratio.js';
