import { finishAsset, readEmbeddedMetadata, rowOf } from './assets.js';
import type { StudioContext } from './context.js';
import { isValidAssetFilename } from './media/filename.js';
import { readImageHeader } from './media/image-header.js';
import { sniffImageType } from './media/image-type.js';
import { thumbnailNameOf } from './media/thumbnail.js';
import { adoptOrphanVideo } from './video/save-video.js';

// Start-up recovery of history: above both assets.ts (images) and
// video/save-video.ts (videos, which save through assets.ts), so neither
// imports the other's module back.

/** Team mode: how old a file without a row must be to be a crash's, not a save under way elsewhere. */
const SHARED_ORPHAN_AGE_MS = 10 * 60_000;

/**
 * Gives history back the complete images and videos whose row a crash lost (between the
 * file's rename and the insert). The metadata embedded in each file says what
 * it is; files without our metadata are left alone. Their thumbnails follow
 * as derived work. Returns how many.
 */
export async function adoptOrphanAssets(ctx: StudioContext): Promise<number> {
  let adopted = 0;
  // In team mode another studio may be between an image's write and its row's insert: only a file
  // older than any save is taken for a crash's (embedded, the state lock says no one else writes).
  const shared = ctx.storage.database === 'postgresql';
  for (const name of await ctx.assets.names('generated')) {
    if (!isValidAssetFilename(name) || (await ctx.store.assets.find(name))) continue;
    if (shared && Date.now() - ((await ctx.assets.stat('generated', name))?.modifiedAt ?? Date.now()) < SHARED_ORPHAN_AGE_MS) continue;
    if (name.endsWith('.mp4')) {
      // A video says what it is in its container's tag (read back with ffprobe).
      if (await adoptOrphanVideo(ctx, name).catch(() => false)) adopted += 1;
      continue;
    }
    const bytes = await ctx.assets.read('generated', name);
    if (!(bytes instanceof Buffer)) continue;
    const format = sniffImageType(bytes);
    const metadata = format ? await readEmbeddedMetadata(bytes) : undefined;
    if (!format || !metadata) continue;
    let header;
    try {
      header = readImageHeader(bytes, format);
    } catch {
      continue; // a damaged file is not given back
    }
    await ctx.store.assets.insert(
      rowOf({ filename: name, thumbnail: thumbnailNameOf(name), format, size: header.displayed, bytes: bytes.length, metadata }),
    );
    void finishAsset(ctx, name);
    adopted += 1;
  }
  return adopted;
}
