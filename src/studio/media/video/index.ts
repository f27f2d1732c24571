// ffmpeg and ffprobe for the studio: common/media's runner with the studio's
// error codes, and what the studio does with videos (probe, frames, metadata, concat).
export { locateTool, nearestRatio, withTempDir, type LocatedTool, type MediaTool } from '../../../common/media/index.js';
export { runTool, outputLimit, OUTPUT_LIMIT_BYTES, DEFAULT_TOOL_TIMEOUT_MS, type ToolRun } from './run-tool.js';
export { probeVideo, checkVideoDecodes, looksLikeMp4, type VideoFacts } from './probe.js';
export { extractFrame, type FramePosition } from './frames.js';
export { embedVideoMetadata, readVideoMetadata } from './mp4-metadata.js';
export { concatVideos } from './concat.js';
