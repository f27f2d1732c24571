import { z } from 'zod';
import { ServiceError } from '../../errors.js';
import { runTool, type ToolRun } from './run-tool.js';

// What a video file is, read by ffprobe (a child process): container,
// duration, the first video stream's codec, size and frame rate, whether it
// has sound, and the container's tags (where our metadata lives).

const stream = z.looseObject({
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  avg_frame_rate: z.string().optional(),
  duration: z.string().optional(),
});
const probeOutput = z.looseObject({
  streams: z.array(stream).default([]),
  format: z.looseObject({ format_name: z.string().optional(), duration: z.string().optional(), tags: z.record(z.string(), z.string()).optional() }).optional(),
});

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
    if (error instanceof ServiceError && error.code === 'FFMPEG_FAILED') throw new ServiceError('VIDEO_SOURCE_INVALID', `The file is not a video ffprobe can read (${error.message}).`, { cause: error });
    throw error;
  }
  let report: unknown;
  try {
    report = JSON.parse(output || '{}');
  } catch {
    // Cut at the captured size (a file whose tags run to megabytes), or not JSON at all.
    throw new ServiceError('VIDEO_SOURCE_INVALID', "The file's description by ffprobe could not be read (its tags are too large, or it is not a video).");
  }
  const parsed = probeOutput.safeParse(report);
  const video = parsed.success ? parsed.data.streams.find((entry) => entry.codec_type === 'video') : undefined;
  if (!parsed.success || !video || !video.width || !video.height) throw new ServiceError('VIDEO_SOURCE_INVALID', 'The file has no video stream.');
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

/** Whether the bytes start like an ISO base media file (MP4): a `ftyp` box first. */
export const looksLikeMp4 = (bytes: Uint8Array): boolean => bytes.length >= 12 && Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'ftyp';
