import { readQuota } from '../quota/quota.js';
import type { StudioRoutes } from './plugin.js';

/** Usage bars of the accounts the studio signs in with (spec: Quota). */
export const quotaRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/quota', () => readQuota(ctx));
};
