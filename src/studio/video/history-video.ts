import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { ServiceError } from '../errors.js';
import { recordOf } from '../assets.js';
import type { StudioContext } from '../context.js';
import { isValidAssetFilename } from '../media/filename.js';
import { probeVideo, withTempDir } from '../media/video/index.js';
import type { AssetRow } from '../store/assets.js';

// The generated MP4s of history as video work reads them: a request's source
// (live, an MP4, never a URL), its bytes, and the file ffmpeg works on (a
// scratch copy) with its duration, taken from the facts probed when it was
// saved, so no second probe runs.

/** A generated MP4 of history, live: its row. */
export async function historyVideoRow(ctx: StudioContext, name: string, field = 'video'): Promise<AssetRow> {
  if (/^[a-z]+:\/\//i.test(name))
    throw new ServiceError('VIDEO_REMOTE_UNSUPPORTED', `${field} must name a generated MP4 of history, not a URL.`, { details: { field } });
  const row = isValidAssetFilename(name) ? await ctx.store.assets.find(name) : undefined;
  if (!row || row.deleted_at !== null || row.format !== 'mp4') {
    throw new ServiceError('VIDEO_SOURCE_NOT_FOUND', `${name.slice(0, 100)} is not a generated MP4 in history.`, {
      details: { field, video: name.slice(0, 100) },
    });
  }
  return row;
}

/** The bytes of a history MP4. */
export async function historyVideoBytes(ctx: StudioContext, filename: string, field = 'video'): Promise<Buffer> {
  const bytes = await ctx.assets.read('generated', filename);
  if (!(bytes instanceof Buffer))
    throw new ServiceError('VIDEO_SOURCE_NOT_FOUND', `${filename} is no longer in history.`, { details: { field, video: filename } });
  return bytes;
}

/** The duration its row keeps (probed when it was saved); undefined for a row without video facts. */
const storedSeconds = (row: AssetRow | undefined): number | undefined => (row ? recordOf(row).video?.durationSeconds : undefined);

/** Copies a history MP4 to `file` (streamed: never the whole video in memory). */
export async function copyHistoryVideo(ctx: StudioContext, filename: string, file: string, field = 'video'): Promise<void> {
  const body = await ctx.assets.open('generated', filename);
  if (!body)
    throw new ServiceError('VIDEO_SOURCE_NOT_FOUND', `${filename} is no longer in history.`, { details: { field, video: filename } });
  await pipeline(body.stream, createWriteStream(file));
}

/** Runs `work` on a scratch copy of a history MP4 (ffmpeg reads files), with its duration. */
export async function withHistoryVideo<T>(
  ctx: StudioContext,
  filename: string,
  work: (file: string, dir: string, durationSeconds: number) => Promise<T>,
  field = 'video',
): Promise<T> {
  return withTempDir(async (dir) => {
    const file = join(dir, 'video.mp4');
    await copyHistoryVideo(ctx, filename, file, field);
    return work(
      file,
      dir,
      storedSeconds(await ctx.store.assets.find(filename)) ?? (await probeVideo(file, { env: ctx.env })).durationSeconds,
    );
  });
}

/** The duration of a history MP4: its row's, else probed. */
export async function historyVideoSeconds(ctx: StudioContext, row: AssetRow, field = 'video'): Promise<number> {
  return storedSeconds(row) ?? withHistoryVideo(ctx, row.filename, async (_file, _dir, seconds) => seconds, field);
}
