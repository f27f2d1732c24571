import { parseWith } from '../../common/validation.js';
import { historyDeleteQuery, historyQuery } from '../api/index.js';
import { readEmbeddedMetadata } from '../assets.js';
import {
  deleteHistoryAsset,
  getHistoryAsset,
  HISTORY_PAGE_DEFAULTS,
  listHistory,
  listHistoryGroups,
  purgeHistoryAsset,
  restoreHistoryAsset,
} from '../history.js';
import { filenameParam } from '../media/filename.js';
import { listRecentlyDeleted } from '../recently-deleted.js';
import type { StudioRoutes } from './plugin.js';

/** GET /api/history (+ one asset, delete, restore). */
export const historyRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/history', async (request) => {
    const query = parseWith(historyQuery, request.query, { what: 'query parameter' });
    if (query.groupBy === 'session') {
      return listHistoryGroups(ctx, {
        limit: query.limit ?? HISTORY_PAGE_DEFAULTS.groups,
        cursor: query.cursor,
        groupItems: query.groupItems ?? HISTORY_PAGE_DEFAULTS.groupItems,
      });
    }
    return listHistory(ctx, {
      limit: query.limit ?? HISTORY_PAGE_DEFAULTS.items,
      cursor: query.cursor,
      filter: {
        ...(query.session !== undefined ? { sessionTitle: query.session.trim() || null } : {}),
        sessionId: query.sessionId,
        provider: query.provider,
        model: query.model,
        kind: query.kind,
        since: query.since,
        until: query.until,
        q: query.q,
      },
    });
  });

  // Not in the spec: the restorable tombstones (a static path, so never read as a file name, which has an extension).
  app.get('/api/history/deleted', async () => listRecentlyDeleted(ctx));

  app.get('/api/history/:filename', async (request) => {
    const filename = filenameParam(request.params);
    const record = await getHistoryAsset(ctx, filename);
    const bytes = await ctx.assets.read('generated', filename);
    const embeddedMetadata = bytes instanceof Buffer ? await readEmbeddedMetadata(bytes).catch(() => undefined) : undefined;
    return { ...record, embeddedMetadata: embeddedMetadata ?? null };
  });

  // `?permanent=true`: no tombstone, no undo; the files go at once (how space is freed on a full disk).
  app.delete('/api/history/:filename', async (request) => {
    const filename = filenameParam(request.params);
    const { permanent } = parseWith(historyDeleteQuery, request.query, { what: 'query parameter' });
    return permanent ? purgeHistoryAsset(ctx, filename) : deleteHistoryAsset(ctx, filename);
  });

  app.post('/api/history/:filename/restore', async (request) => restoreHistoryAsset(ctx, filenameParam(request.params)));
};
