import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../studio/version.js';
import type { ChatService } from '../chat-service.js';
import { agentsOverview } from '../commands.js';

/** Health, agents and status: the read-only facts the UI and scripts poll. */
export function registerInfoRoutes(app: FastifyInstance, service: ChatService, env: Readonly<Record<string, string | undefined>>, startedAt: string): void {
  app.get('/api/health', async () => ({ ok: true, service: 'svc-chat', version: VERSION, demo: service.config.demo, startedAt }));

  app.get('/api/agents', async () => ({ agents: agentsOverview(service, env), defaultAgent: service.config.defaultAgent }));

  app.get('/api/status', async () => {
    const currentSessionId = service.store.currentSessionId();
    return { currentSessionId, queue: service.queueState(currentSessionId), queues: service.queueStatus(), demo: service.config.demo };
  });
}
