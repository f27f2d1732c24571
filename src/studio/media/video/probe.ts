import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { runTool, type ToolRun } from './run-tool.js';

// What a video file is, read by ffprobe (a child process): container,
// duration, the first video stream's codec, size and frame rate, whether it
// has sound, and the container's tags (where our metadata lives).

const stream = lazy(() =>
  z.looseObject({
    codec_type: z.string().optional(),
    codec_name: z.string().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    avg_frame_rate: z.string().optional(),
    duration: z.string().optional(),
  }),
);
const probeOutput = lazy(() =>
  z.looseObject({
    streams: z.array(stream).default([]),
    format: z
      .looseObject({
        format_name: z.string().optional(),
        duration: z.string().optional(),
        tags: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
  }),
);

export interface VideoFacts {
  /** ffprobe's container names, e.g. `mov,mp4,m4a,3gp,3g2,mj2`. */
  readonly container: string;
  readonly codec: string;
  readonly width: number;
  readonly height: number;
  readonly durationSeconds: number;
  readonly fps: number;
  readonly hasAudio: boolean;
  /** Container tags, lower-cased names (`comment` holds our metadata). */
  readonly tags: Readonly<Record<string, string>>;
}

const rate = (text: string | undefined): number => {
  const [num, den] = (text ?? '0/1').split('/').map(Number);
  return den ? Math.round((num / den) * 1000) / 1000 : 0;
};

/** The facts of a video file; VIDEO_SOURCE_INVALID when it is not a video ffprobe can read. */
export async function probeVideo(file: string, run: Omit<ToolRun, 'what'> = {}): Promise<VideoFacts> {
  let output: string;
  try {
    output = await runTool('ffprobe', ['-print_format', 'json', '-show_format', '-show_streams', file], { ...run, what: 'probe' });
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'FFMPEG_FAILED')
      throw new ServiceError('VIDEO_SOURCE_INVALID', `The file is not a video ffprobe can read (${error.message}).`, { cause: error });
    throw error;
  }
  let report: unknown;
  try {
    report = JSON.parse(output || '{}');
  } catch {
    // Cut at the captured size (a file whose tags run to megabytes), or not JSON at all.
    throw new ServiceError(
      'VIDEO_SOURCE_INVALID',
      "The file's description by ffprobe could not be read (its tags are too large, or it is not a video).",
    );
  }
  const parsed = probeOutput.safeParse(report);
  const video = parsed.success ? parsed.data.streams.find((entry) => entry.codec_type === 'video') : undefined;
  if (!parsed.success || !video || !video.width || !video.height)
    throw new ServiceError('VIDEO_SOURCE_INVALID', 'The file has no video stream.');
  const format = parsed.data.format ?? {};
  const durationSeconds = Number(format.duration ?? video.duration ?? 0);
  return {
    container: format.format_name ?? '',
    codec: video.codec_name ?? '',
    width: video.width,
    height: video.height,
    durationSeconds: Number.isFinite(durationSeconds) ? Math.round(durationSeconds * 1000) / 1000 : 0,
    fps: rate(video.avg_frame_rate),
    hasAudio: parsed.data.streams.some((entry) => entry.codec_type === 'audio'),
    tags: Object.fromEntries(Object.entries(format.tags ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
  };
}

/** How much of its declared length a video may lack when decoded (encoders round a last frame's span). */
const DECODE_SHORTFALL = { seconds: 0.25, share: 0.1 } as const;

/**
 * Decodes the first video stream whole and checks it against its declared length: a cut download
 * (the first part of an MP4 whose index names every frame) probes as complete but decodes only
 * up to the cut. VIDEO_SOURCE_INVALID when no frame decodes, or the frames decoded cover less than
 * the stream's declared duration (less DECODE_SHORTFALL).
 */
export async function checkVideoDecodes(file: string, run: Omit<ToolRun, 'what'> = {}): Promise<{ frames: number; seconds: number }> {
  let output: string;
  try {
    output = await runTool(
      'ffprobe',
      [
        '-v',
        'error',
        '-count_frames',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=nb_read_frames,duration,avg_frame_rate',
        '-print_format',
        'json',
        file,
      ],
      { ...run, what: 'decode check' },
    );
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'FFMPEG_FAILED')
      throw new ServiceError('VIDEO_SOURCE_INVALID', `The video does not decode (${error.message}).`, { cause: error });
    throw error;
  }
  const stream = (JSON.parse(output || '{}') as { streams?: { nb_read_frames?: string; duration?: string; avg_frame_rate?: string }[] })
    .streams?.[0];
  const frames = Number(stream?.nb_read_frames ?? 0);
  const fps = rate(stream?.avg_frame_rate);
  const declared = Number(stream?.duration ?? 0);
  const seconds = fps > 0 ? Math.round((frames / fps) * 1000) / 1000 : 0;
  if (!Number.isFinite(frames) || frames <= 0)
    throw new ServiceError('VIDEO_SOURCE_INVALID', 'No frame of the video decodes.', { details: { decodedFrames: 0 } });
  if (
    fps > 0 &&
    Number.isFinite(declared) &&
    declared > 0 &&
    seconds < declared - Math.max(DECODE_SHORTFALL.seconds, declared * DECODE_SHORTFALL.share)
  ) {
    throw new ServiceError(
      'VIDEO_SOURCE_INVALID',
      `The video is cut short: ${frames} frames (${seconds} s) decode of the ${declared} s it declares.`,
      { details: { decodedFrames: frames, decodedSeconds: seconds, declaredSeconds: declared } },
    );
  }
  return { frames, seconds };
}

/** Whether the bytes start like an ISO base media file (MP4): a `ftyp` box first. */
export const looksLikeMp4 = (bytes: Uint8Array): boolean =>
  bytes.length >= 12 && Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'ftyp';
