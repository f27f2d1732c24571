import { ServiceError } from '../errors.js';
import { parseWith } from '../../common/validation.js';
import { FINISHED_JOBS, finishedJobsQuery, requestIdParam, retryRequest } from '../api/index.js';
import type { StudioRoutes } from './plugin.js';

/** Jobs over HTTP: the recently finished ones, any job by requestId (also after it ended), a retry, the unfinished ones, and cancel. */
export const jobRoutes: StudioRoutes = async (app, { ctx }) => {
  // Ours (the spec is silent): what ended lately and how, for the web UI's queue panel; the unfinished ones are /api/inflight.
  app.get('/api/jobs', async (request) => {
    const query = parseWith(finishedJobsQuery, request.query, { what: 'query parameter' });
    const since = query.since ? new Date(query.since).toISOString() : new Date(Date.now() - FINISHED_JOBS.defaultWindowMs).toISOString();
    return { jobs: await ctx.jobs.finishedSince(since, query.limit ?? FINISHED_JOBS.defaultLimit), since };
  });

  app.get('/api/jobs/:requestId', async (request) => {
    const { requestId } = parseWith(requestIdParam, request.params, { what: 'path parameter' });
    const job = await ctx.jobs.get(requestId);
    if (!job)
      throw new ServiceError(
        'JOB_NOT_FOUND',
        `No job with requestId "${requestId}" (finished jobs are kept for a while, then forgotten).`,
        { details: { requestId } },
      );
    return job;
  });

  app.post('/api/jobs/:requestId/retry', async (request, reply) => {
    const { requestId } = parseWith(requestIdParam, request.params, { what: 'path parameter' });
    const body = parseWith(retryRequest, request.body ?? {});
    return reply.code(202).send(await ctx.jobs.retry(requestId, body.requestId));
  });

  app.get('/api/inflight', async () => ({ jobs: await ctx.jobs.inflight() }));

  app.delete<{ Params: { id: string } }>('/api/inflight/:id', async (request) => {
    const job = await ctx.jobs.cancel(request.params.id);
    return { requestId: job.requestId, cancelled: true, job };
  });
};
