import type { AlphaLogoutBody, AlphaSessionBody, AlphaStatusBody } from '../api/alpha.js';
import { alphaSessionInfo, noteAlphaSessionChanged, probeAlphaStatus } from '../lanes/alpha/status.js';
import { removeAlphaSession } from '../lanes/alpha/session-file.js';
import type { StudioRoutes } from './plugin.js';

/** The alpha OAuth session: the status probe (spec), what the session is, and logout. */
export const alphaRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/alpha/status', async (): Promise<AlphaStatusBody> => probeAlphaStatus(ctx) as Promise<AlphaStatusBody>);

  app.get('/api/alpha/session', async (): Promise<AlphaSessionBody> => alphaSessionInfo(ctx));

  app.delete('/api/alpha/session', async (): Promise<AlphaLogoutBody> => {
    const removed = removeAlphaSession(ctx.sessionFile('alpha'));
    noteAlphaSessionChanged(ctx);
    return { removed, auth: 'none' };
  });
};
