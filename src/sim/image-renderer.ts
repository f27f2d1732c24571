import { createHash } from 'node:crypto';
import type { Sharp } from 'sharp';
import { loadSharp } from '../common/sharp.js';
import { hashString, paletteFor } from './render/palette.js';
import { sceneSvg } from './render/scene.js';

// Procedural images for the simulators: real PNG/JPEG/WebP files of exactly
// the requested size, drawn from the prompt and visibly marked as simulated.
// Rasterizing and encoding run in sharp's thread pool, off the event loop;
// results are cached (bounded) because tests and benchmarks repeat prompts.

export type ImageFormat = 'png' | 'jpeg' | 'webp';
export const IMAGE_FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'webp'];

export const MIME_TYPES: Readonly<Record<ImageFormat, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** Largest side the renderer draws (above every vendor limit the simulators check). */
export const MAX_RENDER_SIDE = 8192;

export interface RenderImageOptions {
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly format: ImageFormat;
  /** Varies the picture for the same prompt (e.g. `n` > 1). */
  readonly seed?: number;
  /** `partial` = a blurry, coarse draft of the final picture (streamed previews). */
  readonly quality?: 'partial' | 'final';
  /** Which draft (0-based): later drafts are finer. */
  readonly partialIndex?: number;
  /** `transparent` leaves the background see-through (png and webp only). */
  readonly background?: 'opaque' | 'transparent';
  /** 0-100 quality for jpeg/webp (the vendors' `output_compression`). */
  readonly compression?: number;
  /** An input image (edits): the scene is painted over it, so the result visibly derives from it. */
  readonly baseImage?: Buffer;
}

/** `auto` → 1024x1024; `WxH` → its numbers; anything else → undefined. */
export function imageDimensionsFromSize(size: string): { width: number; height: number } | undefined {
  if (size === 'auto') return { width: 1024, height: 1024 };
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** Draft divisors by partial index: the first draft is 1/16 of the size, then 1/8, then 1/4. */
const DRAFT_DIVISORS = [16, 8, 4];
const MIN_DRAFT_SIDE = 8;

const CACHE_ENTRIES = 48;
const CACHE_BYTES = 96 * 1024 * 1024;
const cache = new Map<string, Promise<Buffer>>();
const cachedSizes = new Map<string, number>();
let cachedBytes = 0;

function remember(key: string, render: () => Promise<Buffer>): Promise<Buffer> {
  const hit = cache.get(key);
  if (hit) {
    // Re-insert: Map order is the LRU order.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const pending = render();
  cache.set(key, pending);
  pending.then(
    (buffer) => {
      if (cache.get(key) !== pending) return;
      cachedSizes.set(key, buffer.length);
      cachedBytes += buffer.length;
      for (const oldest of cache.keys()) {
        if (cache.size <= CACHE_ENTRIES && cachedBytes <= CACHE_BYTES) break;
        if (oldest === key) continue;
        cache.delete(oldest);
        cachedBytes -= cachedSizes.get(oldest) ?? 0;
        cachedSizes.delete(oldest);
      }
    },
    () => cache.delete(key),
  );
  return pending;
}

function encode(pipeline: Sharp, format: ImageFormat, compression: number | undefined): Sharp {
  // Fast settings: these images are test doubles, not art.
  if (format === 'png') return pipeline.png({ compressionLevel: 3, adaptiveFiltering: false });
  if (format === 'jpeg') return pipeline.jpeg({ quality: Math.max(1, Math.min(100, compression ?? 88)) });
  return pipeline.webp({ quality: Math.max(1, Math.min(100, compression ?? 85)), effort: 1 });
}

async function draw(options: RenderImageOptions): Promise<Buffer> {
  const { width, height, format } = options;
  const transparent = options.background === 'transparent' && format !== 'jpeg' && !options.baseImage;
  const seed = hashString(`${options.prompt}\u0000${options.seed ?? 0}`);
  const palette = paletteFor(options.prompt, seed);
  const draft = options.quality === 'partial';
  const divisor = DRAFT_DIVISORS[Math.min(DRAFT_DIVISORS.length - 1, Math.max(0, options.partialIndex ?? 0))];
  const canvasWidth = draft ? Math.max(MIN_DRAFT_SIDE, Math.round(width / divisor)) : width;
  const canvasHeight = draft ? Math.max(MIN_DRAFT_SIDE, Math.round(height / divisor)) : height;
  const svg = Buffer.from(
    sceneSvg(
      {
        prompt: options.prompt,
        width,
        height,
        seed,
        transparent,
        overBaseImage: Boolean(options.baseImage),
        pixelWidth: canvasWidth,
        pixelHeight: canvasHeight,
      },
      palette,
    ),
  );

  const sharp = await loadSharp();
  let canvas: Sharp = options.baseImage
    ? sharp(options.baseImage, { failOn: 'none' })
        .rotate()
        .resize(canvasWidth, canvasHeight, { fit: 'cover' })
        .composite([{ input: svg }])
    : sharp(svg);
  if (!transparent) canvas = canvas.flatten({ background: { r: palette.dominant[0], g: palette.dominant[1], b: palette.dominant[2] } });
  if (draft) {
    // A coarse raster scaled up smoothly reads as an early, blurry render.
    const { data, info } = await canvas.raw().toBuffer({ resolveWithObject: true });
    canvas = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).resize(width, height, {
      fit: 'fill',
      kernel: 'cubic',
    });
  }
  return encode(canvas, format, options.compression).toBuffer();
}

function checkOptions(options: RenderImageOptions): void {
  for (const side of [options.width, options.height]) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_RENDER_SIDE)
      throw new RangeError(`Image sides must be integers from 1 to ${MAX_RENDER_SIDE}.`);
  }
  if (!(options.format in MIME_TYPES)) throw new RangeError(`Unknown image format "${String(options.format)}".`);
}

/** Renders (or returns from the bounded cache) the simulated image for these inputs. */
export function renderImage(options: RenderImageOptions): Promise<Buffer> {
  try {
    checkOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  const { baseImage, ...rest } = options;
  const baseKey = baseImage ? createHash('sha1').update(baseImage).digest('hex') : '';
  const key = JSON.stringify([
    rest.prompt,
    rest.width,
    rest.height,
    rest.format,
    rest.seed ?? 0,
    rest.quality ?? 'final',
    rest.partialIndex ?? 0,
    rest.background ?? 'opaque',
    rest.compression ?? -1,
    baseKey,
  ]);
  return remember(key, () => draw(options));
}

const base64Cache = new WeakMap<Buffer, string>();

/** Base64 of a rendered image, computed once per cached buffer (answers repeat the same images). */
export function imageBase64(image: Buffer): string {
  let encoded = base64Cache.get(image);
  if (encoded === undefined) {
    encoded = image.toString('base64');
    base64Cache.set(image, encoded);
  }
  return encoded;
}
