import { z } from 'zod';
import type { ChatRoutes } from './plugin.js';
import { ServiceError } from '../../common/errors.js';
import { CHAT_LIMITS } from '../limits.js';
import { parseWith } from '../../common/validation.js';

const CreateBody = z.object({
  title: z.string().max(CHAT_LIMITS.sessionTitleMaxChars).optional(),
  /** Make it the current session (publishes session_switched). */
  switch: z.boolean().optional(),
});
const IdParams = z.object({ id: z.string().min(1).max(100) });
const MessagesQuery = z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.messagesListMax).optional() });
const SessionsQuery = z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.messagesListMax).optional() });

/** Sessions: list, create, switch, and a session's messages. */
export const sessionRoutes: ChatRoutes = async (app, { runtime: { service } }) => {
  app.get('/api/sessions', async (request) => {
    const { limit } = parseWith(SessionsQuery, request.query, { what: 'query' });
    // First: it creates the first session when there is none.
    const currentSessionId = service.store.currentSessionId();
    return { sessions: service.store.listSessions(limit), currentSessionId };
  });

  app.post('/api/sessions', async (request, reply) => {
    const body = parseWith(CreateBody, request.body, { what: 'session body' });
    const session = service.createSession(body.title, body.switch ?? false);
    return reply.code(201).send({ session });
  });

  app.post('/api/sessions/:id/switch', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'session id' });
    return { session: service.switchSession(id) };
  });

  app.get('/api/sessions/:id/messages', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'session id' });
    const { limit } = parseWith(MessagesQuery, request.query, { what: 'query' });
    const session = service.store.getSession(id);
    if (!session) throw new ServiceError('NOT_FOUND', `No session ${id}.`, { details: { sessionId: id } });
    return { session, messages: service.store.listMessages(id, limit ?? CHAT_LIMITS.messagesListDefault), queue: service.queueState(id) };
  });
};
