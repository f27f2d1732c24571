import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceError } from '../../errors.js';
import { outputLimit, runTool, secondsArg, type ToolRun } from './run-tool.js';

// One frame of a video as a PNG (ffmpeg in a child process): the first, the
// last, or the one shown at a time in seconds. The poster of a saved video,
// the continuity frame of a storyboard, the frames `analyze` describes.

export type FramePosition = 'first' | 'last' | number;

/** Largest frame PNG written (a 1080p frame is a few MB). */
const FRAME_LIMIT_BYTES = 32 * 1024 * 1024;

/** The PNG of one frame of `file`, written in `dir`. `durationSeconds` (from a probe) places `last` and checks a time. */
export async function extractFrame(
  file: string,
  dir: string,
  position: FramePosition,
  durationSeconds: number,
  run: Omit<ToolRun, 'what'> = {},
): Promise<Buffer> {
  if (typeof position === 'number' && (!Number.isFinite(position) || position < 0 || position > durationSeconds)) {
    throw new ServiceError('VIDEO_FRAME_OUT_OF_RANGE', `The time ${position} s is outside the video (0 to ${durationSeconds} s).`, {
      details: { field: 'at', min: 0, max: durationSeconds, got: position },
    });
  }
  const out = join(dir, `frame-${typeof position === 'number' ? secondsArg(position).replace('.', '_') : position}.png`);
  // `last`: decode the final second and keep overwriting one file, so it ends as the very last frame.
  const seek =
    position === 'first'
      ? []
      : position === 'last'
        ? ['-sseof', secondsArg(-Math.min(1, Math.max(0.05, durationSeconds)))]
        : ['-ss', secondsArg(Math.min(position, Math.max(0, durationSeconds - 0.001)))];
  const select = position === 'last' ? ['-update', '1'] : ['-frames:v', '1'];
  await runTool('ffmpeg', [...seek, '-i', file, ...select, '-an', '-f', 'image2', '-c:v', 'png', ...outputLimit(FRAME_LIMIT_BYTES), out], {
    ...run,
    what: `${position} frame`,
  });
  const size = await stat(out).then(
    (info) => info.size,
    () => 0,
  );
  // A time inside the last frame's span (after it starts, up to the end) is past every frame start, so
  // the seek decodes nothing: the frame shown then is the last one.
  if (size === 0 && typeof position === 'number' && position > 0) return extractFrame(file, dir, 'last', durationSeconds, run);
  if (size === 0)
    throw new ServiceError(
      'VIDEO_SOURCE_INVALID',
      `No ${typeof position === 'number' ? `frame at ${position} s` : `${position} frame`} could be decoded from the video.`,
    );
  if (size >= FRAME_LIMIT_BYTES)
    throw new ServiceError('FFMPEG_FAILED', 'The frame is larger than the studio writes.', { details: { limitBytes: FRAME_LIMIT_BYTES } });
  return readFile(out);
}
