import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceError } from '../../errors.js';
import { probeVideo, type VideoFacts } from './probe.js';
import { OUTPUT_LIMIT_BYTES, outputLimit, runTool, type ToolRun } from './run-tool.js';

// Clips joined into one video, in order, so its duration is their sum.
// Clips of one kind (codec, size, frame rate, sound or not: a storyboard's)
// are joined by the concat demuxer with the streams copied; others are
// re-encoded (H.264, the first clip's size, no sound) by the concat filter.

const uniform = (facts: readonly VideoFacts[]): boolean =>
  facts.every(
    (clip) =>
      clip.codec === facts[0].codec &&
      clip.width === facts[0].width &&
      clip.height === facts[0].height &&
      clip.fps === facts[0].fps &&
      clip.hasAudio === facts[0].hasAudio,
  );

/** Writes the clips' join to `output` (in `dir`'s scratch space); answers its facts. */
export async function concatVideos(
  clips: readonly string[],
  output: string,
  dir: string,
  run: Omit<ToolRun, 'what'> = {},
): Promise<VideoFacts> {
  if (clips.length === 0) throw new ServiceError('BAD_REQUEST', 'Nothing to join.');
  const facts = await Promise.all(clips.map((clip) => probeVideo(clip, run)));
  if (uniform(facts)) {
    const list = join(dir, 'concat.txt');
    await writeFile(list, clips.map((clip) => `file '${clip.replace(/'/g, "'\\''")}'`).join('\n'));
    await runTool(
      'ffmpeg',
      ['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', ...outputLimit(), '-f', 'mp4', output],
      { ...run, what: 'join' },
    );
  } else {
    const { width, height } = facts[0];
    const inputs = clips.flatMap((clip) => ['-i', clip]);
    const scaled = clips
      .map(
        (_, index) =>
          `[${index}:v]scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=24[v${index}]`,
      )
      .join(';');
    const joined = `${scaled};${clips.map((_, index) => `[v${index}]`).join('')}concat=n=${clips.length}:v=1:a=0[out]`;
    await runTool(
      'ffmpeg',
      [
        ...inputs,
        '-filter_complex',
        joined,
        '-map',
        '[out]',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-movflags',
        '+faststart',
        ...outputLimit(),
        '-f',
        'mp4',
        output,
      ],
      {
        ...run,
        what: 'join',
      },
    );
  }
  if ((await stat(output)).size >= OUTPUT_LIMIT_BYTES)
    throw new ServiceError('VIDEO_SOURCE_TOO_LARGE', 'The joined video is larger than the studio keeps.', {
      details: { limitBytes: OUTPUT_LIMIT_BYTES },
    });
  return probeVideo(output, run);
}
