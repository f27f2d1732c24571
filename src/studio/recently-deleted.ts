import { recordOf, type AssetRecord } from './assets.js';
import type { StudioContext } from './context.js';
import { retentionDays } from './history.js';

// "Recently deleted": the tombstones still within retention, newest deletion
// first, so a person can restore an image after its Undo is gone. The spec has
// restore but no listing of what can be restored; this read is the addition
// (GET /api/history/deleted, docs/API.md).

const DAY_MS = 24 * 60 * 60 * 1000;

/** How many tombstones one listing answers at most (newest deletions first). */
export const RECENTLY_DELETED_MAX = 200;

export interface DeletedAsset extends AssetRecord {
  deletedAt: string;
  restorableUntil: string;
}

/** The restorable tombstones at `now`, each with when it was deleted and until when it can come back. */
export async function listRecentlyDeleted(ctx: StudioContext, now = new Date()): Promise<{ items: DeletedAsset[] }> {
  const windowMs = retentionDays(ctx) * DAY_MS;
  const rows = await ctx.store.assets.deletedSince(new Date(now.getTime() - windowMs).toISOString(), RECENTLY_DELETED_MAX);
  return {
    items: rows.map((row) => {
      const deletedAt = row.deleted_at as string;
      return {
        ...recordOf({ ...row, deleted_at: null }),
        deletedAt,
        restorableUntil: new Date(new Date(deletedAt).getTime() + windowMs).toISOString(),
      };
    }),
  };
}
