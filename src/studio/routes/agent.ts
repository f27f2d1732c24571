import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { parseWith } from '../../common/validation.js';
import {
  agentTurnRequest,
  createAgentSessionRequest,
  REQUEST_ID_PATTERN,
  updateAgentSessionRequest,
  type AgentTurnRequest,
} from '../api/index.js';
import {
  agentItem,
  agentQueueOf,
  agentSessionOf,
  cancelAgentItem,
  deleteAgentSessionAndItems,
  itemDelivered,
  planTurnJob,
  retryAgentItem,
} from '../agent/queue.js';
import { createAgentSession, listSessionsOf, updateAgentSession } from '../agent/sessions.js';
import { fingerprintOf } from '../jobs/delivery.js';
import { addJobRoute } from '../jobs/route.js';
import type { StudioRoutes } from './plugin.js';

// Agent Mode (web UI only: no CLI wrapper): sessions, turns and the durable
// queue. Routes parse and answer; agent/ does the work.

const HINTS = { requestId: { pattern: REQUEST_ID_PATTERN.source } };

/** A path's id, as given: an unknown one is a 404 of its resource, whatever it looks like. */
const param = (request: FastifyRequest, name: 'id' | 'itemId'): string => String((request.params as Record<string, unknown>)[name] ?? '');

type TurnInput = AgentTurnRequest & { readonly sessionId: string };

const parseTurn = (request: FastifyRequest): TurnInput => ({
  ...parseWith(agentTurnRequest, request.body, { hints: HINTS }),
  sessionId: param(request, 'id'),
});

export const agentRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/agent/sessions', async () => listSessionsOf(ctx));

  app.post('/api/agent/sessions', async (request, reply) => {
    const session = await createAgentSession(ctx, parseWith(createAgentSessionRequest, request.body));
    return reply.code(201).header('location', `/api/agent/sessions/${session.id}`).send(session);
  });

  app.get('/api/agent/sessions/:id', async (request) => agentSessionOf(ctx, param(request, 'id')));

  app.patch('/api/agent/sessions/:id', async (request) =>
    updateAgentSession(ctx, param(request, 'id'), parseWith(updateAgentSessionRequest, request.body)),
  );

  app.delete('/api/agent/sessions/:id', async (request) => deleteAgentSessionAndItems(ctx, param(request, 'id')));

  // A turn is a job of the session's queue: sync (the turn as it ended), async (202) or per-request SSE.
  addJobRoute(app, ctx, {
    url: '/api/agent/sessions/:id/turns',
    parse: parseTurn,
    plan: (ctx, input, requestId) => planTurnJob(ctx, input.sessionId, input, requestId),
    delivered: itemDelivered,
  });

  app.get('/api/agent/sessions/:id/queue', async (request) => agentQueueOf(ctx, param(request, 'id')));

  // Enqueue: always answered at once (202, the item); the item runs whether or not the client stays.
  app.post('/api/agent/sessions/:id/queue', async (request, reply) => {
    const input = parseTurn(request);
    const requestId = input.requestId ?? randomUUID();
    const job = await planTurnJob(ctx, input.sessionId, input, requestId);
    try {
      await ctx.jobs.submit({ ...job, fingerprint: fingerprintOf('agent-turn', input) });
    } finally {
      await itemDelivered(ctx, requestId);
    }
    return reply.code(202).send(await agentItem(ctx, requestId));
  });

  app.post('/api/agent/queue/:itemId/cancel', async (request) => cancelAgentItem(ctx, param(request, 'itemId')));

  app.post('/api/agent/queue/:itemId/retry', async (request, reply) =>
    reply.code(202).send(await retryAgentItem(ctx, param(request, 'itemId'))),
  );
};
