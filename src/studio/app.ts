import type { FastifyInstance } from 'fastify';
import { studioStorage } from './jobs/limits.js';
import { createHttpApp } from '../common/http-app.js';
import { LIMITS } from './catalog/limits.js';
import type { StudioContext } from './context.js';
import { LANE_MODULES } from './catalog/registry.js';
import { agentRoutes } from './routes/agent.js';
import { assetRoutes } from './routes/assets.js';
import { defaultsRoutes } from './routes/defaults.js';
import { discoveryRoutes } from './routes/discovery.js';
import { fileRoutes } from './routes/files.js';
import { generateRoutes } from './routes/generate.js';
import { historyRoutes } from './routes/history.js';
import { jobRoutes } from './routes/jobs.js';
import { keyRoutes } from './routes/keys.js';
import { quotaRoutes } from './routes/quota.js';
import { authSwitchRoutes } from './routes/auth-switch.js';
import { nodeRoutes } from './routes/nodes.js';
import { promptBuilderRoutes } from './routes/prompt-builder.js';
import type { StudioRoutes } from './routes/plugin.js';
import { sessionRoutes } from './routes/sessions.js';
import { storageRoutes } from './routes/storage.js';
import { videoRoutes } from './routes/video.js';
import { mcpServerRoutes } from './mcp-server/route.js';
import { openaiRoutes } from './openai/routes.js';
import { studioNotFoundPage, studioWebPublicPaths, webRoutes } from './routes/web.js';
import { demoGuideRoutes } from './routes/demo-guide.js';

/** The event channel's route. */
const eventRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/events', (request, reply) => ctx.channel.serve(request, reply));
};

/** Route families, each a Fastify plugin. Add a family here and nowhere else. */
const ROUTE_FAMILIES: readonly StudioRoutes[] = [
  discoveryRoutes,
  storageRoutes,
  defaultsRoutes,
  historyRoutes,
  fileRoutes,
  assetRoutes,
  generateRoutes,
  videoRoutes,
  nodeRoutes,
  sessionRoutes,
  jobRoutes,
  keyRoutes,
  quotaRoutes,
  authSwitchRoutes,
  agentRoutes,
  promptBuilderRoutes,
  eventRoutes,
  demoGuideRoutes,
  mcpServerRoutes,
  openaiRoutes,
  webRoutes,
];

export interface StudioAppOptions {
  allowedOrigins?: readonly string[];
  token?: string;
  logger?: boolean;
  /** Most time to receive a request (default: CONNECTION_LIMITS); tests of a stalled body lower it. */
  requestTimeoutMs?: number;
}

/** Builds the studio's HTTP app over a context. Listening is main.ts's job. */
export function buildStudioApp(ctx: StudioContext, options: StudioAppOptions = {}): FastifyInstance {
  const app = createHttpApp({
    bodyLimit: LIMITS.requestBodyMaxBytes,
    logger: options.logger,
    requestTimeoutMs: options.requestTimeoutMs,
    storage: studioStorage(ctx),
    notFoundPage: studioNotFoundPage(ctx.env),
    security: {
      allowedOrigins: [...(options.allowedOrigins ?? []), ...(ctx.settings.get().allowedOrigins ?? [])],
      token: options.token,
      // The web UI's page and built files hold no data: served without the token (the page brings it).
      publicPaths: studioWebPublicPaths(ctx.env),
    },
  });
  for (const routes of ROUTE_FAMILIES) void app.register(routes, { ctx });
  // Each lane's own routes (its session status, its catalog), each plugin once however many lanes share it.
  for (const routes of new Set(LANE_MODULES.flatMap((lane) => (lane.routes ? [lane.routes] : []))))
    void app.register(routes as StudioRoutes, { ctx });
  return app;
}
