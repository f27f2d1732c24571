import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import type { ChatRoutes } from './plugin.js';
import { AGENT_IDS } from '../agents/catalog.js';
import { CHAT_LIMITS } from '../limits.js';
import { ORC_PHASES } from '../orchestration/phases.js';
import { validatePrompt } from '../prompt.js';
import { parseWith } from '../../common/validation.js';

const OrcAction = lazy(() =>
  z.discriminatedUnion('action', [
    z.object({
      action: z.literal('start'),
      task: z.string(),
      sessionId: z.string().min(1).max(100).optional(),
      agent: z.enum(AGENT_IDS).optional(),
    }),
    z.object({ action: z.literal('next'), phase: z.enum(ORC_PHASES).optional() }),
    z.object({ action: z.literal('reset') }),
  ]),
);

/** GET /api/orc (state and recent transitions), POST /api/orc {action}: the same operations as /orc. */
export const orcRoutes: ChatRoutes = async (app, { runtime: { orchestrator } }) => {
  app.get('/api/orc', async () => ({ state: orchestrator.current, transitions: orchestrator.transitions(CHAT_LIMITS.orcTransitionsMax) }));

  app.post('/api/orc', async (request) => {
    const body = parseWith(OrcAction, request.body, { what: 'orchestration body' });
    if (body.action === 'start')
      return { state: orchestrator.start({ task: validatePrompt(body.task), sessionId: body.sessionId, agent: body.agent }) };
    if (body.action === 'next') return { state: orchestrator.next(body.phase) };
    return { state: orchestrator.reset() };
  });
};
