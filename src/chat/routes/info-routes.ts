import { VERSION } from '../../common/version.js';
import type { ChatRoutes } from './plugin.js';
import { agentsOverview } from '../commands/index.js';
import { summarizeGoal } from '../goals/goal.js';

/** Health, agents and status: the read-only facts the UI, scripts and the manager poll. */
export const infoRoutes: ChatRoutes = async (app, { runtime, startedAt }) => {
  const { service, env } = runtime;
  app.get('/api/health', async () => ({ ok: true, service: 'svc-chat', version: VERSION, demo: service.config.demo, startedAt }));

  app.get('/api/agents', async () => ({ agents: agentsOverview(service, env), defaultAgent: service.config.defaultAgent }));

  app.get('/api/status', async () => {
    const currentSessionId = service.store.currentSessionId();
    const goal = runtime.goals.current();
    return {
      currentSessionId,
      queue: service.queueState(currentSessionId),
      queues: service.queueStatus(),
      demo: service.config.demo,
      goal: goal ? summarizeGoal(goal) : null,
      orc: runtime.orchestrator.current,
    };
  });
};
