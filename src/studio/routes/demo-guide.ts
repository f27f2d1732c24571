import { ServiceError } from '../../common/errors.js';
import { DEMO_GUIDE } from '../../sim/demo-guide.js';
import type { StudioRoutes } from './plugin.js';

/**
 * GET /api/demo (not in the spec): in demo mode, the simulators' prompt triggers and the rejected-key
 * rule (sim/demo-guide.ts), which the web UI's demo badge lists. A studio with real upstreams has none.
 */
export const demoGuideRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/demo', async () => {
    if (!ctx.demo) throw new ServiceError('NOT_FOUND', 'This studio is not running the demo (svc serve --demo): it has no simulators to script.');
    return DEMO_GUIDE;
  });
};
