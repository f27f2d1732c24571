import { oauthStatus } from '../auth/oauth-status.js';
import type { StudioRoutes } from './plugin.js';

/** The chat OAuth session the `oauth` lane uses (spec: `GET /api/oauth/status`), without tokens. */
export const oauthStatusRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/oauth/status', async () => oauthStatus(ctx));
};
