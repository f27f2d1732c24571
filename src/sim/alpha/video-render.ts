import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSharp } from '../../common/sharp.js';
import { outputLimit, runMediaTool, withTempDir } from '../../common/media/index.js';
import { renderImage } from '../image-renderer.js';

// The simulator's MP4s: real, small, playable H.264 files of the requested
// duration and size. One still comes from the procedural renderer (over the
// source frame for image-to-video, edits and extensions), with the prompt
// written on it; ffmpeg (a child process) turns it into a clip with motion: a
// slow zoom and a marker that crosses the frame. Cheap: a 3 s 480p clip takes
// a fraction of a second on two cores.

/** Frames per second of every simulated clip. */
export const SIM_VIDEO_FPS = 24;

/** Pixel size per resolution and aspect ratio: the short side is the resolution's lines, sides even (H.264 4:2:0). */
export function simVideoSize(resolution: string, aspectRatio: string): { width: number; height: number } {
  const lines = Number(/^(\d+)p$/.exec(resolution)?.[1] ?? 480);
  const [w, h] = aspectRatio.split(':').map(Number);
  const ratio = w > 0 && h > 0 ? w / h : 16 / 9;
  const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);
  return ratio >= 1 ? { width: even(lines * ratio), height: lines } : { width: lines, height: even(lines / ratio) };
}

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The prompt, wrapped in at most three lines, over a dark band at the bottom. */
function captionSvg(prompt: string, width: number, height: number): Buffer {
  const size = Math.max(12, Math.round(height / 18));
  const perLine = Math.max(10, Math.floor(width / (size * 0.55)));
  const words = prompt.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if ((line ? `${line} ${word}` : word).length > perLine && line) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  const shown = lines.slice(0, 3);
  if (lines.length > 3) shown[2] = `${shown[2].slice(0, perLine - 1)}…`;
  const band = Math.round(size * 1.4 * shown.length + size * 0.8);
  const text = shown
    .map(
      (content, index) =>
        `<text x="${Math.round(width / 2)}" y="${height - band + Math.round(size * 1.2 * (index + 1))}" text-anchor="middle" font-family="DejaVu Sans, sans-serif" font-size="${size}" fill="#ffffff">${escapeXml(content)}</text>`,
    )
    .join('');
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="0" y="${height - band}" width="${width}" height="${band}" fill="#000000" fill-opacity="0.55"/>${text}</svg>`,
  );
}

export interface SimVideoOptions {
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly durationSeconds: number;
  /** The first frame to start from (image-to-video, the source's frame of an edit or extension). */
  readonly baseImage?: Buffer;
  readonly seed?: number;
}

/** Renders the clip; answers the MP4's bytes. */
export async function renderSimVideo(options: SimVideoOptions): Promise<Buffer> {
  const { width, height, durationSeconds } = options;
  const still = await renderImage({
    prompt: options.prompt || 'video',
    width,
    height,
    format: 'png',
    seed: options.seed ?? 0,
    ...(options.baseImage ? { baseImage: options.baseImage } : {}),
  });
  const sharp = await loadSharp();
  const frame = await sharp(still)
    .composite([{ input: captionSvg(options.prompt, width, height) }])
    .png({ compressionLevel: 1 })
    .toBuffer();
  return withTempDir(async (dir) => {
    const stillFile = join(dir, 'still.png');
    const out = join(dir, 'clip.mp4');
    await writeFile(stillFile, frame);
    const marker = Math.max(8, Math.round(Math.min(width, height) / 12));
    const frames = Math.max(1, Math.round(durationSeconds * SIM_VIDEO_FPS));
    // Motion: a zoom from 100 % to 110 % over the clip, and a marker crossing from left to right.
    const filter = [
      `[0:v]scale=${Math.round((width * 1.1) / 2) * 2}:${Math.round((height * 1.1) / 2) * 2},crop=w='${width}':h='${height}':x='(in_w-${width})*n/${frames}':y='(in_h-${height})*n/${frames}'[bg]`,
      `[bg][1:v]overlay=x='(W-w)*t/${durationSeconds}':y='H*0.12'`,
      'format=yuv420p[out]',
    ]
      .join(';')
      .replace(/;format/, ',format');
    await runMediaTool(
      'ffmpeg',
      [
        '-loop',
        '1',
        '-framerate',
        String(SIM_VIDEO_FPS),
        '-t',
        String(durationSeconds),
        '-i',
        stillFile,
        '-f',
        'lavfi',
        '-i',
        `color=c=white:s=${marker}x${marker}:r=${SIM_VIDEO_FPS}`,
        '-filter_complex',
        filter,
        '-map',
        '[out]',
        '-frames:v',
        String(frames),
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-tune',
        'stillimage',
        '-pix_fmt',
        'yuv420p',
        '-r',
        String(SIM_VIDEO_FPS),
        '-movflags',
        '+faststart',
        ...outputLimit(),
        '-f',
        'mp4',
        out,
      ],
      { what: 'simulated clip', timeoutMs: 120_000 },
    );
    return readFile(out);
  });
}

interface ProbeReport {
  readonly streams?: readonly { codec_type?: string; width?: number; height?: number; duration?: string }[];
  readonly format?: { duration?: string };
}

/**
 * A source video's facts and one of its frames (an edit starts from its first, an extension from its last).
 * Throws when the bytes are not a video ffprobe reads (the route answers the vendor's refusal).
 */
export async function sourceFrame(
  bytes: Buffer,
  position: 'first' | 'last',
): Promise<{ frame: Buffer; width: number; height: number; durationSeconds: number }> {
  return withTempDir(async (dir) => {
    const file = join(dir, 'source.mp4');
    await writeFile(file, bytes);
    const report = JSON.parse(
      (await runMediaTool('ffprobe', ['-print_format', 'json', '-show_format', '-show_streams', file], { what: 'source probe' })) || '{}',
    ) as ProbeReport;
    const video = report.streams?.find((stream) => stream.codec_type === 'video');
    if (!video?.width || !video.height) throw new Error('The source has no video stream.');
    const duration = Number(report.format?.duration ?? video.duration ?? 0);
    const durationSeconds = Number.isFinite(duration) ? Math.round(duration * 1000) / 1000 : 0;
    const out = join(dir, 'frame.png');
    // The last frame: decode the final stretch and keep overwriting one file.
    const seek = position === 'first' ? [] : ['-sseof', String(-Math.min(1, Math.max(0.05, durationSeconds)))];
    const select = position === 'first' ? ['-frames:v', '1'] : ['-update', '1'];
    await runMediaTool(
      'ffmpeg',
      [...seek, '-i', file, ...select, '-an', '-f', 'image2', '-c:v', 'png', ...outputLimit(32 * 1024 * 1024), out],
      { what: `${position} frame` },
    );
    const frame = await readFile(out);
    if (frame.length === 0) throw new Error(`No ${position} frame could be decoded from the source.`);
    return { frame, width: video.width, height: video.height, durationSeconds };
  });
}
