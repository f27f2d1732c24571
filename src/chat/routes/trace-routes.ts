import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import type { ChatRoutes } from './plugin.js';
import { CHAT_LIMITS } from '../limits.js';
import { parseWith } from '../../common/validation.js';

const ListQuery = lazy(() => z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.tracesListMax).optional() }));

/** GET /api/traces (newest first) and GET /api/traces/:traceId. */
export const traceRoutes: ChatRoutes = async (app, { traces }) => {
  app.get('/api/traces', async (request) => {
    const { limit } = parseWith(ListQuery, request.query, { what: 'query' });
    return { traces: traces.list(limit ?? CHAT_LIMITS.tracesListDefault) };
  });

  app.get('/api/traces/:traceId', async (request) => {
    // The id is checked against the trace id pattern before any file is touched.
    const { traceId } = request.params as { traceId: string };
    return traces.read(traceId);
  });
};
