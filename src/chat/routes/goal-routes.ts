import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import type { ChatRoutes } from './plugin.js';
import { AGENT_IDS } from '../agents/catalog.js';
import { goalText } from '../goals/goal-text.js';
import { CHAT_LIMITS } from '../limits.js';
import { parseWith } from '../../common/validation.js';

const text = lazy(() => z.string().max(CHAT_LIMITS.goalTextMaxChars));

const GoalAction = lazy(() =>
  z.discriminatedUnion('action', [
    z.object({
      action: z.literal('set'),
      objective: text,
      replace: z.boolean().optional(),
      sessionId: z.string().min(1).max(100).optional(),
      agent: z.enum(AGENT_IDS).optional(),
    }),
    z.object({ action: z.literal('refine'), objective: text }),
    z.object({
      action: z.literal('update'),
      summary: text,
      nextAction: text.optional(),
      evidence: z.array(text).max(CHAT_LIMITS.goalCheckpointsMax).optional(),
    }),
    z.object({ action: z.literal('pause'), reason: text.optional() }),
    z.object({ action: z.enum(['resume', 'done', 'cancel', 'clear']) }),
  ]),
);

const HistoryQuery = lazy(() => z.object({ limit: z.coerce.number().int().min(1).max(CHAT_LIMITS.goalHistoryMax).optional() }));

/** GET /api/goal, GET /api/goal/history, POST /api/goal {action, ...}: the same operations as /goal. */
export const goalRoutes: ChatRoutes = async (app, { runtime: { goals } }) => {
  app.get('/api/goal', async () => ({ goal: goals.current() ?? null }));

  app.get('/api/goal/history', async (request) => {
    const { limit } = parseWith(HistoryQuery, request.query, { what: 'query' });
    return { goals: goals.history(limit ?? CHAT_LIMITS.goalHistoryMax) };
  });

  app.post('/api/goal', async (request) => {
    const body = parseWith(GoalAction, request.body, { what: 'goal body' });
    switch (body.action) {
      case 'set':
        return {
          goal: goals.set({
            objective: goalText(body.objective, 'objective'),
            replace: body.replace,
            sessionId: body.sessionId,
            agent: body.agent,
          }),
        };
      case 'refine':
        return { goal: goals.refine(goalText(body.objective, 'objective')) };
      case 'update':
        return {
          goal: goals.update({
            summary: goalText(body.summary, 'checkpoint summary'),
            nextAction: body.nextAction === undefined ? undefined : goalText(body.nextAction, 'next action'),
            evidence: (body.evidence ?? []).map((item) => goalText(item, 'evidence item')),
          }),
        };
      case 'pause':
        return { goal: goals.pause(body.reason?.trim() || undefined) };
      case 'resume':
        return { goal: goals.resume() };
      case 'done':
        return { goal: goals.done() };
      case 'cancel':
        return { goal: goals.cancel() };
      case 'clear':
        return { goal: goals.clear() ?? null };
    }
  });
};
