import { readdir, readFile, rm } from 'node:fs/promises';
import sharp from 'sharp';
import { writeFileAtomicAsync } from '../common/atomic-file.js';
import { ServiceError } from '../common/errors.js';
import type { AssetRecord } from './api/index.js';
import type { StudioContext } from './context.js';
import { fileExists, isValidAssetFilename, newAssetFilename, pathInside } from './media/filename.js';
import { sniffImageType, type ImageFormat } from './media/image-type.js';
import { embedMetadata, readEmbeddedMetadata, type AssetMetadata } from './media/metadata.js';
import { makeThumbnail, thumbnailNameOf } from './media/thumbnail.js';
import { findAsset, insertAsset, isNameTaken, type AssetRow, type NewAssetRow } from './store/assets.js';

export type { AssetMetadata } from './media/metadata.js';
export { readEmbeddedMetadata };

export type { AssetRecord } from './api/index.js';

/** Generated images are the user's own: readable by them alone. */
const PRIVATE_FILE = 0o600;

/** URL prefix the file routes serve assets under (thumbnails under `thumbs/`). */
export const GENERATED_URL_PREFIX = '/generated/';

export const assetUrl = (filename: string): string => `${GENERATED_URL_PREFIX}${encodeURIComponent(filename)}`;
export const thumbnailUrl = (filename: string): string => `${GENERATED_URL_PREFIX}thumbs/${encodeURIComponent(thumbnailNameOf(filename))}`;

function parseSettings(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function recordOf(row: AssetRow): AssetRecord {
  return {
    filename: row.filename,
    url: assetUrl(row.filename),
    thumbnailUrl: thumbnailUrl(row.filename),
    format: row.format,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    createdAt: row.created_at,
    prompt: row.prompt,
    provider: row.lane,
    model: row.model,
    requestId: row.request_id,
    kind: row.kind,
    sessionTitle: row.session_title,
    revisedPrompt: row.revised_prompt,
    settings: parseSettings(row.settings),
  };
}

/** A session title worth grouping by: trimmed, empty means none. */
export const normalizeSessionTitle = (title: string | null | undefined): string | null => title?.trim() || null;

function creationTime(value: string | undefined): Date {
  const date = value === undefined ? new Date() : new Date(value);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

/** A fresh name whose image and thumbnail are free on disk and in the table (tombstones included). */
async function freshNames(ctx: StudioContext, createdAt: Date, prompt: string, format: ImageFormat): Promise<{ filename: string; thumbnail: string }> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const filename = newAssetFilename(createdAt, prompt, format);
    const thumbnail = thumbnailNameOf(filename);
    if (isNameTaken(ctx.db, filename, thumbnail)) continue;
    if (await fileExists(pathInside(ctx.paths.generatedDir, filename))) continue;
    if (await fileExists(pathInside(ctx.paths.thumbnailsDir, thumbnail))) continue;
    return { filename, thumbnail };
  }
  throw new ServiceError('INTERNAL_ERROR', 'Could not find a free asset file name.');
}

/** The row of an asset, from its file's facts and its metadata. */
function rowOf(facts: { filename: string; thumbnail: string; format: ImageFormat; size: { width: number; height: number }; bytes: number; metadata: AssetMetadata }): NewAssetRow {
  const { metadata } = facts;
  return {
    filename: facts.filename,
    thumbnail: facts.thumbnail,
    format: facts.format,
    width: facts.size.width,
    height: facts.size.height,
    bytes: facts.bytes,
    created_at: metadata.createdAt ?? new Date().toISOString(),
    prompt: metadata.prompt,
    lane: metadata.lane,
    model: metadata.model,
    request_id: metadata.requestId,
    kind: metadata.kind,
    session_title: normalizeSessionTitle(metadata.sessionTitle),
    revised_prompt: metadata.revisedPrompt ?? null,
    settings: JSON.stringify(metadata.settings ?? {}),
  };
}

/** The displayed size: EXIF orientation 5-8 swaps the sides. */
async function displayedSize(bytes: Buffer): Promise<{ stored: { width: number; height: number }; size: { width: number; height: number } }> {
  const info = await sharp(bytes).metadata();
  return { stored: { width: info.width, height: info.height }, size: { width: info.autoOrient.width, height: info.autoOrient.height } };
}

/**
 * Gives history back the complete images whose row a crash lost (between the
 * file's rename and the insert). The metadata embedded in each file says what
 * it is; files without our metadata are left alone. Returns how many.
 */
export async function adoptOrphanAssets(ctx: StudioContext): Promise<number> {
  let adopted = 0;
  for (const entry of await readdir(ctx.paths.generatedDir, { withFileTypes: true })) {
    if (!entry.isFile() || !isValidAssetFilename(entry.name) || findAsset(ctx.db, entry.name)) continue;
    const path = pathInside(ctx.paths.generatedDir, entry.name);
    const bytes = await readFile(path);
    const format = sniffImageType(bytes);
    const metadata = format ? await readEmbeddedMetadata(bytes) : undefined;
    if (!format || !metadata) continue;
    const thumbnail = thumbnailNameOf(entry.name);
    const { size } = await displayedSize(bytes);
    await writeFileAtomicAsync(pathInside(ctx.paths.thumbnailsDir, thumbnail), await makeThumbnail(bytes), PRIVATE_FILE);
    insertAsset(ctx.db, rowOf({ filename: entry.name, thumbnail, format, size, bytes: bytes.length, metadata }));
    adopted += 1;
  }
  return adopted;
}

/**
 * Saves a generated image into history: the image (metadata embedded, written
 * atomically), its thumbnail, then the row. Files come first so a crash never
 * leaves a row without files; if the row cannot be written the files go too.
 */
export async function saveAsset(ctx: StudioContext, input: { bytes: Buffer; metadata: AssetMetadata }): Promise<AssetRecord> {
  const format = sniffImageType(input.bytes);
  if (!format) throw new ServiceError('UPSTREAM_FAILED', 'The upstream returned an image that is not PNG, JPEG or WebP.');
  let stored: { width: number; height: number };
  let size: { width: number; height: number };
  try {
    ({ stored, size } = await displayedSize(input.bytes));
  } catch (error) {
    throw new ServiceError('UPSTREAM_FAILED', 'The upstream returned an image that cannot be decoded.', { cause: error });
  }

  const createdAt = creationTime(input.metadata.createdAt);
  const metadata: AssetMetadata = {
    ...input.metadata,
    sessionTitle: normalizeSessionTitle(input.metadata.sessionTitle) ?? undefined,
    createdAt: createdAt.toISOString(),
  };
  let image: Buffer;
  let thumbnailBytes: Buffer;
  try {
    image = embedMetadata(input.bytes, format, metadata, stored);
    thumbnailBytes = await makeThumbnail(image);
  } catch (error) {
    throw new ServiceError('UPSTREAM_FAILED', 'The upstream returned a damaged image.', { cause: error });
  }

  const { filename, thumbnail } = await freshNames(ctx, createdAt, metadata.prompt, format);
  const imagePath = pathInside(ctx.paths.generatedDir, filename);
  const thumbnailPath = pathInside(ctx.paths.thumbnailsDir, thumbnail);
  const row = rowOf({ filename, thumbnail, format, size, bytes: image.length, metadata });
  try {
    await writeFileAtomicAsync(imagePath, image, PRIVATE_FILE);
    await writeFileAtomicAsync(thumbnailPath, thumbnailBytes, PRIVATE_FILE);
    insertAsset(ctx.db, row);
  } catch (error) {
    await Promise.all([rm(imagePath, { force: true }), rm(thumbnailPath, { force: true })]);
    throw error;
  }
  return recordOf({ ...row, id: 0, deleted_at: null });
}
