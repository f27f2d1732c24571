import type { FastifyInstance } from 'fastify';
import type { StudioContext } from '../context.js';
import { jobRegistry } from '../jobs/registry.js';

/** The in-flight registry over HTTP: list jobs, cancel one (its upstream call is aborted). */
export function registerInflightRoutes(app: FastifyInstance, ctx: StudioContext): void {
  const jobs = jobRegistry(ctx);

  app.get('/api/inflight', async () => ({ jobs: jobs.list() }));

  app.delete<{ Params: { id: string } }>('/api/inflight/:id', async (request) => {
    const job = await jobs.cancel(request.params.id);
    return { requestId: job.requestId, cancelled: true, job };
  });
}
