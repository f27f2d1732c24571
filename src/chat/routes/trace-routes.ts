import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CHAT_LIMITS } from '../limits.js';
import type { TraceStore } from '../traces/trace-store.js';
import { parseWith } from './body.js';

const ListQuery = z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.tracesListMax).optional() });

/** GET /api/traces (newest first) and GET /api/traces/:traceId. */
export function registerTraceRoutes(app: FastifyInstance, traces: TraceStore): void {
  app.get('/api/traces', async (request) => {
    const { limit } = parseWith(ListQuery, request.query, 'query');
    return { traces: traces.list(limit ?? CHAT_LIMITS.tracesListDefault) };
  });

  app.get('/api/traces/:traceId', async (request) => {
    // The id is checked against the trace id pattern before any file is touched.
    const { traceId } = request.params as { traceId: string };
    return traces.read(traceId);
  });
}
