import { recordOf, type AssetRecord } from './assets.js';
import type { StudioContext } from './context.js';
import { retentionDays } from './history.js';
import { statementsOf } from './store/database.js';
import type { AssetRow } from './store/assets.js';

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

const prepared = statementsOf((db) => ({
  since: db.prepare<[string, number], AssetRow>('SELECT * FROM assets WHERE deleted_at IS NOT NULL AND deleted_at > ? ORDER BY deleted_at DESC, id DESC LIMIT ?'),
}));

/** The restorable tombstones at `now`, each with when it was deleted and until when it can come back. */
export function listRecentlyDeleted(ctx: StudioContext, now = new Date()): { items: DeletedAsset[] } {
  const windowMs = retentionDays(ctx) * DAY_MS;
  const rows = prepared(ctx.db).since.all(new Date(now.getTime() - windowMs).toISOString(), RECENTLY_DELETED_MAX);
  return {
    items: rows.map((row) => {
      const deletedAt = row.deleted_at as string;
      return { ...recordOf({ ...row, deleted_at: null }), deletedAt, restorableUntil: new Date(new Date(deletedAt).getTime() + windowMs).toISOString() };
    }),
  };
}
