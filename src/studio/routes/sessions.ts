import type { FastifyReply } from 'fastify';
import { parseWith } from '../../common/validation.js';
import {
  API_LIMITS,
  createSessionRequest,
  GRAPH_ID_PATTERN,
  GRAPH_LIMITS,
  renameSessionRequest,
  sessionIdParam,
  sessionsQuery,
} from '../api/index.js';
import { etagOf } from '../graphs/preconditions.js';
import { createSession, deleteSession, getGraph, getSession, listSessions, renameSession, saveGraph } from '../graphs/sessions.js';
import type { StudioRoutes } from './plugin.js';

// Graph sessions: GET/POST /api/sessions, GET/PATCH/DELETE /api/sessions/:id,
// GET/PUT /api/sessions/:id/graph. The graph's version is the ETag of both
// GETs; a PUT must send it back in If-Match.

/** Page size when the client does not say. */
const SESSIONS_PAGE_DEFAULT = 50;

const HINTS = {
  id: { pattern: GRAPH_ID_PATTERN.source },
  title: { minLength: 1, maxLength: GRAPH_LIMITS.titleMaxChars },
  limit: { min: 1, max: API_LIMITS.historyPageMax },
};

/** A session's answers carry its graph version as a strong ETag, and are never cached: a rename keeps the version. */
const versioned = (reply: FastifyReply, version: number): FastifyReply =>
  reply.header('etag', etagOf(version)).header('cache-control', 'no-store');

const idOf = (params: unknown): string => parseWith(sessionIdParam, params, { what: 'path parameter', hints: HINTS }).id;

export const sessionRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/sessions', async (request) => {
    const query = parseWith(sessionsQuery, request.query, { what: 'query parameter', hints: HINTS });
    return listSessions(ctx, { limit: query.limit ?? SESSIONS_PAGE_DEFAULT, cursor: query.cursor });
  });

  app.post('/api/sessions', async (request, reply) => {
    const { title } = parseWith(createSessionRequest, request.body, { hints: HINTS });
    const session = await createSession(ctx, title);
    return versioned(reply, session.version).header('location', `/api/sessions/${session.id}`).code(201).send(session);
  });

  app.get('/api/sessions/:id', async (request, reply) => {
    const session = await getSession(ctx, idOf(request.params));
    return versioned(reply, session.version).send(session);
  });

  app.patch('/api/sessions/:id', async (request) => {
    const id = idOf(request.params);
    const { title } = parseWith(renameSessionRequest, request.body, { hints: HINTS });
    return renameSession(ctx, id, title);
  });

  app.delete('/api/sessions/:id', async (request) => deleteSession(ctx, idOf(request.params)));

  app.get('/api/sessions/:id/graph', async (request, reply) => {
    const graph = await getGraph(ctx, idOf(request.params));
    return versioned(reply, graph.version).send(graph);
  });

  app.put('/api/sessions/:id/graph', async (request, reply) => {
    const id = idOf(request.params);
    const saved = await saveGraph(ctx, id, request.headers['if-match'], request.body);
    return versioned(reply, saved.version).send(saved);
  });
};
