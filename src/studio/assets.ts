import { ServiceError } from './errors.js';
import { isStorageFull } from '../common/storage-full.js';
import { ASSET_TOPIC, videoFacts, type AssetEventName, type AssetEventPayload, type AssetRecord, type VideoFacts } from './api/index.js';
import type { StudioContext } from './context.js';
import { newAssetFilenames } from './media/filename.js';
import { sniffImageType, type AssetFormat } from './media/image-type.js';
import { embedMetadata, metadataPayload, readEmbeddedMetadata, type AssetMetadata } from './media/metadata.js';
import { makeThumbnail, thumbnailNameOf } from './media/thumbnail.js';
import type { AssetRow, NewAssetRow } from './store/assets.js';
import { readImageHeader } from './media/image-header.js';
import { checkSvg, svgSize, withSvgMetadata } from './media/svg.js';

export type { AssetMetadata } from './media/metadata.js';
export { readEmbeddedMetadata };

export type { AssetRecord } from './api/index.js';

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

/** A video's facts, kept in its settings when it was saved (media/video probe). */
function videoFactsOf(row: AssetRow, settings: Record<string, unknown>): { video: VideoFacts } | Record<string, never> {
  if (row.format !== 'mp4') return {};
  const parsed = videoFacts.safeParse(settings.video);
  return parsed.success ? { video: parsed.data } : {};
}

export function recordOf(row: AssetRow): AssetRecord {
  const settings = parseSettings(row.settings);
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
    // A graph session's title as it is now (a rename shows); otherwise the title the image was saved with.
    sessionTitle: row.session_current_title ?? row.session_title,
    sessionId: row.session_id,
    revisedPrompt: row.revised_prompt,
    settings,
    thumbnailReady: row.thumbnail_state === 'ready',
    derivedFrom: row.derived_from,
    ...videoFactsOf(row, settings),
  };
}

/** A session title worth grouping by: trimmed, empty means none. */
export const normalizeSessionTitle = (title: string | null | undefined): string | null => title?.trim() || null;

function creationTime(value: string | undefined): Date {
  const date = value === undefined ? new Date() : new Date(value);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

/** Fresh names tried for one image (a name taken on disk or in the table draws again). */
const NAME_DRAWS = 5;

/**
 * Writes an image durably under a fresh name: one free in the table (tombstones
 * included) and on disk. A file no row knows (left by a crash) is never
 * overwritten; a stray thumbnail may be (it is derived). The bytes move to the
 * writer's thread: `image` is empty afterwards.
 */
export async function writeUnderFreshName(
  ctx: StudioContext,
  image: Buffer,
  createdAt: Date,
  prompt: string,
  format: AssetFormat,
): Promise<string> {
  const drawn = newAssetFilenames(createdAt, prompt, format, NAME_DRAWS);
  const taken = await ctx.store.assets.takenNames(drawn.map((filename) => ({ filename, thumbnail: thumbnailNameOf(filename) })));
  const names = drawn.filter((_filename, index) => !taken[index]);
  const written = await ctx.assets.create(names, image);
  if (!written) throw new ServiceError('INTERNAL_ERROR', 'Could not find a free asset file name.');
  return written;
}

/** The row of an asset, from its file's facts and its metadata. */
export function rowOf(facts: {
  filename: string;
  thumbnail: string;
  format: AssetFormat;
  size: { width: number; height: number };
  bytes: number;
  metadata: AssetMetadata;
}): NewAssetRow {
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
    thumbnail_state: 'pending',
    derived_from: null,
    // The link to a graph session is not in the file's metadata: an image adopted after a crash keeps only its title.
    session_id: null,
  };
}

/** The stored form of an image to save: its format, its bytes with our metadata embedded, its size. */
function prepareImage(
  bytes: Buffer,
  metadata: AssetMetadata,
): { format: AssetFormat; image: Buffer; size: { width: number; height: number } } {
  const format = sniffImageType(bytes);
  if (!format) throw new ServiceError('UPSTREAM_FAILED', 'The upstream returned an image that is not PNG, JPEG or WebP.');
  let header;
  try {
    header = readImageHeader(bytes, format);
  } catch (error) {
    throw new ServiceError('UPSTREAM_FAILED', `The upstream returned a damaged image: ${(error as Error).message}.`, { cause: error });
  }
  try {
    return {
      format,
      image: embedMetadata(bytes, format, metadata, { width: header.width, height: header.height }),
      size: header.displayed,
    };
  } catch (error) {
    throw new ServiceError('UPSTREAM_FAILED', 'The upstream returned a damaged image.', { cause: error });
  }
}

/** The stored form of an SVG: checked against the allow-list first (an SVG is a document that could run script). */
function prepareVector(
  bytes: Buffer,
  metadata: AssetMetadata,
): { format: AssetFormat; image: Buffer; size: { width: number; height: number } } {
  const text = bytes.toString('utf8');
  try {
    checkSvg(text);
    return { format: 'svg', image: Buffer.from(withSvgMetadata(text, metadataPayload(metadata))), size: svgSize(text) };
  } catch (error) {
    throw new ServiceError('SVG_UNSAFE', `The SVG was not saved: ${(error as Error).message}.`, { cause: error });
  }
}

export interface SaveInput {
  readonly bytes: Buffer;
  readonly metadata: AssetMetadata;
  /** An SVG document (checked before it is saved); otherwise a PNG, JPEG or WebP. */
  readonly vector?: boolean;
  /** The asset this one was made from. */
  readonly derivedFrom?: string;
  /** The graph session it was made in (a node's image): linked by id, its title embedded in the file. */
  readonly session?: { readonly id: string; readonly title: string };
}

/** An asset whose file is durable and whose row is still to be written (recordAsset). */
export type WrittenAsset = NewAssetRow;

/**
 * Saves an image into history and answers as soon as it is durable: a
 * structural check (header, size, complete file), the metadata embedded
 * (never re-encoded), the file written atomically, then the row. The
 * thumbnail and the full decode follow off the request path (finishAsset).
 * If the row cannot be written the file goes too.
 */
export async function saveAsset(ctx: StudioContext, input: SaveInput): Promise<AssetRecord> {
  return recordAsset(ctx, await writeAsset(ctx, input));
}

/** The first half of saveAsset: the image checked, its metadata embedded, its file written durably. */
export async function writeAsset(ctx: StudioContext, input: SaveInput): Promise<WrittenAsset> {
  const createdAt = creationTime(input.metadata.createdAt);
  const metadata: AssetMetadata = {
    ...input.metadata,
    sessionTitle: normalizeSessionTitle(input.session?.title ?? input.metadata.sessionTitle) ?? undefined,
    createdAt: createdAt.toISOString(),
  };
  const { format, image, size } = input.vector ? prepareVector(input.bytes, metadata) : prepareImage(input.bytes, metadata);

  const bytes = image.length;
  const filename = await writeUnderFreshName(ctx, image, createdAt, metadata.prompt, format);
  return {
    ...rowOf({ filename, thumbnail: thumbnailNameOf(filename), format, size, bytes, metadata }),
    derived_from: input.derivedFrom ?? null,
    session_id: input.session?.id ?? null,
  };
}

/** The second half of saveAsset: the row of a written asset, its thumbnail scheduled. If the row cannot be written the file goes. */
export async function recordAsset(ctx: StudioContext, row: WrittenAsset): Promise<AssetRecord> {
  try {
    await ctx.store.assets.insert(row);
  } catch (error) {
    await ctx.assets.remove('generated', row.filename);
    throw error;
  }
  void finishAsset(ctx, row.filename);
  return recordOf({ ...row, id: 0, deleted_at: null });
}

/** A written asset that will have no row (the call that made it failed after all): its file goes. */
export const discardAsset = (ctx: StudioContext, row: WrittenAsset): Promise<void> => ctx.assets.remove('generated', row.filename);

/**
 * The derived part of saving, off the request path: decode every pixel into
 * the thumbnail. An image that does not decode is tombstoned (its files stay
 * until the sweeper) and reported; either way the outcome is published on the
 * channel (topic `assets`).
 */
export function finishAsset(ctx: StudioContext, filename: string): Promise<void> {
  return ctx.derived.schedule(filename, async () => {
    const row = await ctx.store.assets.find(filename);
    if (!row || row.thumbnail_state !== 'pending') return;
    let thumbnail: Buffer;
    try {
      const bytes = await ctx.assets.read('generated', filename);
      if (!(bytes instanceof Buffer)) throw new Error('its file is gone');
      thumbnail = await makeThumbnail(bytes);
    } catch (error) {
      const problem = new ServiceError(
        'UPSTREAM_FAILED',
        `The image ${filename} is damaged: it does not decode (${(error as Error).message}). It was removed from history.`,
        {
          details: { filename, requestId: row.request_id },
        },
      );
      await ctx.store.assets.markBroken(filename, new Date().toISOString());
      publishAssetEvent(ctx, 'asset_broken', { filename, requestId: row.request_id, error: problem.toBody().error });
      return;
    }
    // A derived file: no fsync (a crash loses it, and start-up makes it again from the pending row).
    try {
      await ctx.assets.replace('thumbnails', row.thumbnail, thumbnail);
    } catch (error) {
      // No room: the row stays pending and the next start makes it (the image is served meanwhile).
      if (isStorageFull(error)) return;
      throw error;
    }
    await ctx.store.assets.setThumbnailState(filename, 'ready');
    publishAssetEvent(ctx, 'thumbnail_ready', { filename, requestId: row.request_id, thumbnailUrl: thumbnailUrl(filename) });
  });
}

/** Start-up: finish the assets a crash (or a stop) left without a thumbnail. Returns how many were scheduled. */
export async function finishPendingAssets(ctx: StudioContext): Promise<number> {
  const rows = await ctx.store.assets.pendingThumbnails();
  for (const row of rows) void finishAsset(ctx, row.filename);
  return rows.length;
}

function publishAssetEvent<E extends AssetEventName>(ctx: StudioContext, event: E, payload: AssetEventPayload<E>): void {
  ctx.events.publish(ASSET_TOPIC, event, payload);
}
