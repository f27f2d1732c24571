import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import type { ChatRoutes } from './plugin.js';
import { ServiceError } from '../errors.js';
import { CHAT_LIMITS } from '../limits.js';
import { parseWith } from '../../common/validation.js';
import { isOpenGoal } from '../goals/goal.js';

const CreateBody = lazy(() =>
  z.object({
    title: z.string().max(CHAT_LIMITS.sessionTitleMaxChars).optional(),
    /** Make it the current session (publishes session_switched). */
    switch: z.boolean().optional(),
  }),
);
const IdParams = lazy(() => z.object({ id: z.string().min(1).max(100) }));
const RenameBody = lazy(() => z.object({ title: z.string().trim().max(CHAT_LIMITS.sessionTitleMaxChars) }));
const QueuedParams = lazy(() => z.object({ id: z.string().min(1).max(100), traceId: z.string().min(1).max(100) }));
const MessagesQuery = lazy(() => z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.messagesListMax).optional() }));
const SessionsQuery = lazy(() => z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.messagesListMax).optional() }));

/** Sessions: list, create, rename, delete, switch, a session's messages, and taking a waiting message back. */
export const sessionRoutes: ChatRoutes = async (app, { runtime: { service, goals, orchestrator } }) => {
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

  app.patch('/api/sessions/:id', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'session id' });
    const { title } = parseWith(RenameBody, request.body, { what: 'session body' });
    return { session: service.renameSession(id, title) };
  });

  app.delete('/api/sessions/:id', async (request, reply) => {
    const { id } = parseWith(IdParams, request.params, { what: 'session id' });
    const goal = goals.current();
    const orc = orchestrator.current;
    const busyWith =
      isOpenGoal(goal) && goal.sessionId === id
        ? 'the open goal runs in it'
        : orc.phase !== 'idle' && orc.phase !== 'done' && orc.sessionId === id
          ? 'the PABCD orchestration runs in it'
          : undefined;
    service.deleteSession(id, busyWith);
    return reply.code(204).send();
  });

  app.post('/api/sessions/:id/switch', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'session id' });
    return { session: service.switchSession(id) };
  });

  // A waiting message taken back before it runs (the page's queue list); it ends `cancelled`.
  app.delete('/api/sessions/:id/queue/:traceId', async (request, reply) => {
    const { id, traceId } = parseWith(QueuedParams, request.params, { what: 'queued run' });
    service.withdraw(id, traceId);
    return reply.code(204).send();
  });

  app.get('/api/sessions/:id/messages', async (request) => {
    const { id } = parseWith(IdParams, request.params, { what: 'session id' });
    const { limit } = parseWith(MessagesQuery, request.query, { what: 'query' });
    const session = service.store.getSession(id);
    if (!session) throw new ServiceError('NOT_FOUND', `No session ${id}.`, { details: { sessionId: id } });
    return { session, messages: service.store.listMessages(id, limit ?? CHAT_LIMITS.messagesListDefault), queue: service.queueState(id) };
  });
};
