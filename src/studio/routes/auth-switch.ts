import { z } from 'zod';
import { parseWith } from '../../common/validation.js';
import { switchRequest } from '../api/auth.js';
import { AccountSwitches } from '../auth/switch.js';
import type { StudioRoutes } from './plugin.js';

/** Device-code account switching (spec: Device-code flow): start, follow, cancel. */
export const authSwitchRoutes: StudioRoutes = async (app, { ctx }) => {
  const switches = new AccountSwitches(ctx);
  app.addHook('onClose', async () => switches.close());
  const params = z.object({ sessionId: z.string() });

  app.post('/api/auth/switch', async (request) => switches.start(parseWith(switchRequest, request.body).provider));
  app.get('/api/auth/switch/:sessionId', async (request) => switches.status(parseWith(params, request.params).sessionId));
  app.delete('/api/auth/switch/:sessionId', async (request) => switches.cancel(parseWith(params, request.params).sessionId));
};
