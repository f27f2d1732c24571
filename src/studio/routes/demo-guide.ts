import { ServiceError } from '../errors.js';
import type { StudioRoutes } from './plugin.js';

/**
 * GET /api/demo (not in the spec): in demo mode, the simulators' prompt triggers and the rejected-key
 * rule (src/demo/guide.ts, given with the demo's options), which the web UI's demo badge lists. A studio
 * with real upstreams has none.
 */
export const demoGuideRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/demo', async () => {
    if (!ctx.demoContent)
      throw new ServiceError('NOT_FOUND', 'This studio is not running the demo (svc serve --demo): it has no simulators to script.');
    return ctx.demoContent.guide;
  });
};
