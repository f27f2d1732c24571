import type { AlphaLogoutBody, AlphaSessionBody, AlphaStatusBody } from '../../api/alpha.js';
import type { LaneRoutes } from '../types.js';
import { removeAlphaSession } from './session-file.js';
import { alphaSessionInfo, noteAlphaSessionChanged, probeAlphaStatus } from './status.js';

/** The alpha OAuth session: the status probe (spec), what the session is, and logout. */
export const alphaRoutes: LaneRoutes = async (app, { ctx }) => {
  app.get('/api/alpha/status', async (): Promise<AlphaStatusBody> => probeAlphaStatus(ctx) as Promise<AlphaStatusBody>);

  app.get('/api/alpha/session', async (): Promise<AlphaSessionBody> => alphaSessionInfo(ctx));

  app.delete('/api/alpha/session', async (): Promise<AlphaLogoutBody> => {
    const removed = removeAlphaSession(ctx.sessionFile('alpha'));
    noteAlphaSessionChanged(ctx);
    return { removed, auth: 'none' };
  });
};
