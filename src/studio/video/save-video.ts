import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceError } from '../errors.js';
import { VIDEO_SHAPE_RATIOS, type AssetRecord, type VideoFacts } from '../api/index.js';
import { normalizeSessionTitle, recordOf, rowOf, writeUnderFreshName } from '../assets.js';
import type { StudioContext } from '../context.js';
import { parseMetadataPayload, type AssetMetadata } from '../media/metadata.js';
import {
  checkVideoDecodes,
  embedVideoMetadata,
  extractFrame,
  looksLikeMp4,
  nearestRatio,
  probeVideo,
  withTempDir,
  type VideoFacts as ProbedFacts,
} from '../media/video/index.js';
import { makeThumbnail, thumbnailNameOf } from '../media/thumbnail.js';
import { isValidAssetFilename } from '../media/filename.js';

// Saving a video into history, for every producer of videos (the video jobs
// here, and any other job whose lane answers an MP4): the bytes checked to be an MP4 with a
// video stream (ffprobe), our metadata embedded in the container (streams
// copied, never re-encoded), the poster thumbnail made from a frame, then the
// file written atomically under a fresh name, the thumbnail beside it, and
// the row last (ready at once: a video's thumbnail is made before the row,
// in the job, not after it). A failure at any step leaves nothing in history.

/** Where the poster frame is taken: a moment in, so a clip that starts from a blank canvas still shows its subject. */
const POSTER_AT_SECONDS = 1;

/** `480p`, `720p`, `1080p` by the short side. */
const resolutionOf = (width: number, height: number): string => `${Math.min(width, height)}p`;

/** What history keeps of a probed video. */
/** The poster thumbnail of a video file (a frame a moment in). */
async function posterOf(
  file: string,
  dir: string,
  durationSeconds: number,
  run: { env: StudioContext['env']; signal?: AbortSignal },
): Promise<Buffer> {
  return makeThumbnail(await extractFrame(file, dir, Math.min(POSTER_AT_SECONDS, durationSeconds / 2), durationSeconds, run));
}

const videoFactsOf = (facts: ProbedFacts): VideoFacts => ({
  durationSeconds: facts.durationSeconds,
  resolution: resolutionOf(facts.width, facts.height),
  aspectRatio: nearestRatio(facts.width, facts.height, VIDEO_SHAPE_RATIOS),
  codec: facts.codec,
  fps: facts.fps,
  hasAudio: facts.hasAudio,
});

export interface SaveVideoInput {
  /** The MP4 as the producer got it (the upstream's download). */
  readonly bytes: Buffer;
  readonly metadata: AssetMetadata;
  /** The asset it was made from (an edit's or extension's source). */
  readonly derivedFrom?: string;
  /** The graph session it belongs to. */
  readonly session?: { readonly id: string; readonly title: string };
  readonly signal?: AbortSignal;
}

/** Saves a video into history; answers its record (with its facts under `video`). */
export async function saveVideoAsset(ctx: StudioContext, input: SaveVideoInput): Promise<AssetRecord> {
  if (!looksLikeMp4(input.bytes)) throw new ServiceError('UPSTREAM_FAILED', 'The upstream returned a video that is not an MP4.');
  const run = { env: ctx.env, ...(input.signal ? { signal: input.signal } : {}) };
  const prepared = await withTempDir(async (dir) => {
    const original = join(dir, 'original.mp4');
    const embedded = join(dir, 'video.mp4');
    await writeFile(original, input.bytes);
    const damaged = (error: unknown) =>
      error instanceof ServiceError && error.code === 'VIDEO_SOURCE_INVALID'
        ? new ServiceError('UPSTREAM_FAILED', `The upstream returned a damaged video: ${error.message}`, { cause: error })
        : error;
    let facts: ProbedFacts;
    try {
      // A cut download probes as whole (its index names every frame): it is decoded, never a half MP4 in history.
      await checkVideoDecodes(original, run);
      facts = await probeVideo(original, run);
    } catch (error) {
      throw damaged(error);
    }
    const metadata: AssetMetadata = {
      ...input.metadata,
      settings: { ...input.metadata.settings, video: videoFactsOf(facts) },
      sessionTitle: normalizeSessionTitle(input.session?.title ?? input.metadata.sessionTitle) ?? undefined,
      createdAt: input.metadata.createdAt ?? new Date().toISOString(),
    };
    await embedVideoMetadata(original, embedded, metadata, run);
    // History keeps the facts of the file written (the copy with its metadata), not of the download.
    const written = await probeVideo(embedded, run).catch((error: unknown) => Promise.reject(damaged(error)));
    if (Math.abs(written.durationSeconds - facts.durationSeconds) > 0.05)
      throw new ServiceError(
        'UPSTREAM_FAILED',
        `The upstream returned a damaged video: it lasts ${written.durationSeconds} s once written, not the ${facts.durationSeconds} s it declared.`,
      );
    return {
      bytes: await readFile(embedded),
      thumbnail: await posterOf(embedded, dir, written.durationSeconds, run),
      facts: written,
      metadata,
    };
  });
  const { facts, metadata, thumbnail } = prepared;
  const size = prepared.bytes.length;
  const filename = await writeUnderFreshName(ctx, prepared.bytes, new Date(metadata.createdAt as string), metadata.prompt, 'mp4');
  const row = {
    ...rowOf({
      filename,
      thumbnail: thumbnailNameOf(filename),
      format: 'mp4',
      size: { width: facts.width, height: facts.height },
      bytes: size,
      metadata,
    }),
    thumbnail_state: 'ready' as const,
    derived_from: input.derivedFrom ?? null,
    session_id: input.session?.id ?? null,
  };
  try {
    await ctx.assets.replace('thumbnails', row.thumbnail, thumbnail);
    await ctx.store.assets.insert(row);
  } catch (error) {
    await ctx.assets.remove('generated', filename);
    await ctx.assets.remove('thumbnails', row.thumbnail);
    throw error;
  }
  return recordOf({ ...row, id: 0, deleted_at: null });
}

/**
 * Gives history back a complete video whose row a crash lost (between the
 * file's rename and the insert), from the metadata embedded in it: the server
 * reads back what it wrote. Videos without our metadata are left alone.
 */
export async function adoptOrphanVideo(ctx: StudioContext, name: string): Promise<boolean> {
  if (!isValidAssetFilename(name) || !name.endsWith('.mp4') || (await ctx.store.assets.find(name))) return false;
  const bytes = await ctx.assets.read('generated', name);
  if (!(bytes instanceof Buffer) || !looksLikeMp4(bytes)) return false;
  return withTempDir(async (dir) => {
    const file = join(dir, 'video.mp4');
    await writeFile(file, bytes);
    // One probe: the facts, and the metadata in the container's tag.
    const facts = await probeVideo(file, { env: ctx.env }).catch(() => undefined);
    const metadata = facts?.tags.comment === undefined ? undefined : parseMetadataPayload(facts.tags.comment);
    if (!facts || !metadata) return false;
    const row = {
      ...rowOf({
        filename: name,
        thumbnail: thumbnailNameOf(name),
        format: 'mp4',
        size: { width: facts.width, height: facts.height },
        bytes: bytes.length,
        metadata,
      }),
      thumbnail_state: 'ready' as const,
    };
    await ctx.assets.replace('thumbnails', row.thumbnail, await posterOf(file, dir, facts.durationSeconds, { env: ctx.env }));
    await ctx.store.assets.insert(row);
    return true;
  });
}
