import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ServiceError } from '../../common/errors.js';
import { readEmbeddedMetadata } from '../assets.js';
import { LIMITS } from '../catalog/limits.js';
import type { StudioContext } from '../context.js';
import {
  deleteHistoryAsset,
  getHistoryAsset,
  HISTORY_PAGE_DEFAULTS,
  HISTORY_SWEEP_INTERVAL_MS,
  listHistory,
  listHistoryGroups,
  restoreHistoryAsset,
  startHistorySweeper,
} from '../history.js';
import { filenameParam, pathInside } from '../media/filename.js';

const pageSize = z.coerce.number().int().min(1).max(LIMITS.historyPageMax);

const listQuery = z.object({
  limit: pageSize.optional(),
  cursor: z.string().min(1).max(1024).optional(),
  groupBy: z.enum(['session']).optional(),
  /** One session's items; the empty string selects the assets without a title. */
  session: z.string().max(1024).optional(),
  groupItems: pageSize.optional(),
});

function parseQuery(query: unknown): z.infer<typeof listQuery> {
  const parsed = listQuery.safeParse(query ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServiceError('BAD_REQUEST', `Query parameter ${issue?.path.join('.') || '?'}: ${issue?.message}`, {
      details: { field: issue?.path.join('.'), max: LIMITS.historyPageMax },
    });
  }
  if (parsed.data.groupBy && parsed.data.session !== undefined) {
    throw new ServiceError('BAD_REQUEST', 'Use either groupBy=session or session=<title>, not both.');
  }
  return parsed.data;
}

/** GET /api/history (+ one asset, delete, restore) and the tombstone sweeper's lifecycle. */
export function registerHistoryRoutes(app: FastifyInstance, ctx: StudioContext): void {
  app.get('/api/history', async (request) => {
    const query = parseQuery(request.query);
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
      sessionTitle: query.session === undefined ? undefined : query.session.trim() || null,
    });
  });

  app.get('/api/history/:filename', async (request) => {
    const filename = filenameParam(request.params);
    const record = getHistoryAsset(ctx, filename);
    const embeddedMetadata = await readEmbeddedMetadata(pathInside(ctx.paths.generatedDir, filename)).catch(() => undefined);
    return { ...record, embeddedMetadata: embeddedMetadata ?? null };
  });

  app.delete('/api/history/:filename', async (request) => deleteHistoryAsset(ctx, filenameParam(request.params)));

  app.post('/api/history/:filename/restore', async (request) => restoreHistoryAsset(ctx, filenameParam(request.params)));

  // The sweeper runs while the server listens; close stops it and waits for a sweep in progress.
  let sweeper: ReturnType<typeof startHistorySweeper> | undefined;
  app.addHook('onReady', async () => {
    sweeper = startHistorySweeper(ctx, {
      intervalMs: HISTORY_SWEEP_INTERVAL_MS,
      onError: (error) => app.log.error({ err: error }, 'history sweep failed'),
    });
  });
  app.addHook('onClose', async () => {
    sweeper?.stop();
    await sweeper?.idle();
  });
}
