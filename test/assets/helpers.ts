import sharp from 'sharp';
import { readdirSync } from 'node:fs';
import { saveAsset, type AssetMetadata, type AssetRecord } from '../../src/studio/assets.js';
import type { ImageFormat } from '../../src/studio/media/image-type.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

export type { TestStudio } from '../helpers/studio.js';

/** A real image made by sharp. */
export async function makeImage(
  format: ImageFormat,
  options: { width?: number; height?: number; alpha?: boolean; lossless?: boolean; color?: string } = {},
): Promise<Buffer> {
  const { width = 320, height = 200, alpha = false, color = '#3366cc' } = options;
  const base = sharp({
    create: { width, height, channels: alpha ? 4 : 3, background: alpha ? { r: 200, g: 40, b: 90, alpha: 0.5 } : color },
  });
  if (format === 'png') return base.png().toBuffer();
  if (format === 'jpeg') return base.jpeg({ quality: 85 }).toBuffer();
  return base.webp({ lossless: options.lossless ?? false }).toBuffer();
}

export function metadata(overrides: Partial<AssetMetadata> = {}): AssetMetadata {
  return {
    prompt: 'a red fox in the snow',
    lane: 'api',
    model: 'lang-5.6-luna',
    requestId: 'req-1',
    kind: 'generate',
    settings: { quality: 'high', size: '1024x1024' },
    ...overrides,
  };
}

/** Saves `count` PNG assets with creation times one minute apart (oldest first), starting at `start`. */
export async function seed(
  studio: TestStudio,
  count: number,
  options: {
    start?: string;
    sessionTitle?: (index: number) => string | undefined;
    prompt?: (index: number) => string;
    /** Any other metadata of the index-th asset (lane, model, kind, revised prompt...). */
    meta?: (index: number) => Partial<AssetMetadata>;
  } = {},
): Promise<AssetRecord[]> {
  const start = new Date(options.start ?? '2025-03-01T10:00:00.000Z').getTime();
  const image = await makeImage('png', { width: 64, height: 64 });
  const saved: AssetRecord[] = [];
  for (let index = 0; index < count; index += 1) {
    saved.push(
      await saveAsset(studio.ctx, {
        bytes: image,
        metadata: metadata({
          prompt: options.prompt?.(index) ?? `image number ${index}`,
          requestId: `req-${index}`,
          createdAt: new Date(start + index * 60_000).toISOString(),
          sessionTitle: options.sessionTitle?.(index),
          ...options.meta?.(index),
        }),
      }),
    );
  }
  // Thumbnails follow a save off the request path; the tests look at the files, so let them land,
  // and answer the records as history now lists them (thumbnailReady).
  await studio.ctx.derived.idle();
  return saved.map((record) => ({ ...record, thumbnailReady: true }));
}

export const startAssetStudio = (env: Record<string, string> = {}): Promise<TestStudio> => startTestStudio({ env });

/** Entries of a directory (names), empty when it does not exist. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

export async function getJson<T = Record<string, unknown>>(
  studio: TestStudio,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: T }> {
  const response = await studio.request(path, init);
  return { status: response.status, body: (await response.json()) as T };
}
