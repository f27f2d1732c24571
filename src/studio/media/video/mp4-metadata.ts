import { stat } from 'node:fs/promises';
import { ServiceError } from '../../errors.js';
import { metadataPayload, parseMetadataPayload, type AssetMetadata } from '../metadata.js';
import { probeVideo } from './probe.js';
import { OUTPUT_LIMIT_BYTES, outputLimit, runTool, type ToolRun } from './run-tool.js';

// Our generation metadata in an MP4: the same JSON payload as every image's
// (`svc.asset-metadata/1`), as the container's `comment` tag (MP4 `©cmt`),
// written by ffmpeg with the streams copied (never re-encoded) and the index
// moved to the front (`+faststart`: the file plays while it downloads).
// Read back by ffprobe, exiftool or any player's info panel.

/** Copies `input` to `output` with the metadata embedded. */
export async function embedVideoMetadata(
  input: string,
  output: string,
  metadata: AssetMetadata,
  run: Omit<ToolRun, 'what'> = {},
): Promise<void> {
  await runTool(
    'ffmpeg',
    [
      '-i',
      input,
      '-map',
      '0',
      '-c',
      'copy',
      '-map_metadata',
      '-1',
      '-metadata',
      `comment=${metadataPayload(metadata)}`,
      '-movflags',
      '+faststart',
      ...outputLimit(),
      '-f',
      'mp4',
      output,
    ],
    {
      ...run,
      what: 'metadata',
    },
  );
  if ((await stat(output)).size >= OUTPUT_LIMIT_BYTES)
    throw new ServiceError('VIDEO_SOURCE_TOO_LARGE', 'The video is larger than the studio keeps.', {
      details: { limitBytes: OUTPUT_LIMIT_BYTES },
    });
}

/** The metadata embedded in a video file; undefined when absent, foreign or malformed. */
export async function readVideoMetadata(file: string, run: Omit<ToolRun, 'what'> = {}): Promise<AssetMetadata | undefined> {
  const comment = (await probeVideo(file, run)).tags.comment;
  return comment === undefined ? undefined : parseMetadataPayload(comment);
}
