import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../common/http-app.js';
import { LIMITS } from './catalog/limits.js';
import type { StudioContext } from './context.js';
import { registerDefaultsRoutes } from './routes/defaults.js';
import { registerDiscoveryRoutes } from './routes/discovery.js';
import { registerFileRoutes } from './routes/files.js';
import { registerHistoryRoutes } from './routes/history.js';
import { registerGenerateRoutes } from './routes/generate.js';
import { registerInflightRoutes } from './routes/inflight.js';
import { registerStorageRoutes } from './routes/storage.js';

/** Route families, each a function of (app, ctx). Add a family here and nowhere else. */
const ROUTE_FAMILIES: ReadonlyArray<(app: FastifyInstance, ctx: StudioContext) => void> = [
  registerDiscoveryRoutes,
  registerStorageRoutes,
  registerDefaultsRoutes,
  registerHistoryRoutes,
  registerFileRoutes,
  registerGenerateRoutes,
  registerInflightRoutes,
  (app, ctx) => app.get('/api/events', (request, reply) => ctx.events.serve(request, reply)),
];

export interface StudioAppOptions {
  allowedOrigins?: readonly string[];
  token?: string;
  logger?: boolean;
}

/** Builds the studio's HTTP app over a context. Listening is main.ts's job. */
export function buildStudioApp(ctx: StudioContext, options: StudioAppOptions = {}): FastifyInstance {
  const app = createHttpApp({
    bodyLimit: LIMITS.requestBodyMaxBytes,
    logger: options.logger,
    security: {
      allowedOrigins: [...(options.allowedOrigins ?? []), ...(ctx.settings.get().allowedOrigins ?? [])],
      token: options.token,
    },
  });
  for (const register of ROUTE_FAMILIES) register(app, ctx);
  return app;
}
