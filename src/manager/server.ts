import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { EventChannel } from '../common/events/channel.js';
import { createHttpApp } from '../common/http-app.js';
import { closeHttpApp, listenWithFallback } from '../common/listen.js';
import { VERSION } from '../common/version.js';
import { MANAGER_ENV, resolveManagerConfig, type ManagerConfig, type ManagerConfigOverrides } from './config.js';
import { Instances } from './instances.js';
import { MANAGER_LIMITS } from './limits.js';
import { dashboardPublicPaths, registerDashboardRoutes } from './routes/dashboard-routes.js';
import { registerInstanceRoutes } from './routes/instance-routes.js';

export interface ManagerServerOptions extends ManagerConfigOverrides {
  env?: Readonly<Record<string, string | undefined>>;
  logger?: boolean;
  host?: string;
  /** Preferred port (0 = any free; default SVC_CHAT_MANAGER_PORT or 3355, the next free one if taken). */
  port?: number;
}

export interface RunningManager {
  readonly app: FastifyInstance;
  readonly config: ManagerConfig;
  readonly instances: Instances;
  readonly channel: EventChannel;
  readonly url: string;
  readonly port: number;
  /** Stops following, stops launched workers, ends streams, closes the HTTP server. Idempotent. */
  close(): Promise<void>;
}

function portFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[MANAGER_ENV.port];
  if (!raw) return MANAGER_LIMITS.defaultPort;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${MANAGER_ENV.port} must be a port number (got ${raw}).`);
  return port;
}

/**
 * The manager: a registry of chat-server workers, each followed server-side
 * (events, state, health) into a latest-state cache, served to the dashboard
 * over HTTP and on its own event channel. Loopback by default, with the same
 * Host/Origin/token protections as the servers it manages.
 */
export async function startManagerServer(options: ManagerServerOptions = {}): Promise<RunningManager> {
  const env = options.env ?? process.env;
  const config = resolveManagerConfig(env, options);
  mkdirSync(config.home, { recursive: true, mode: 0o700 });
  const channel = new EventChannel();
  const instances = new Instances(config, channel, env);
  const startedAt = new Date().toISOString();
  const killLaunched = () => instances.killLaunchedNow();
  process.on('exit', killLaunched);

  const app = createHttpApp({
    bodyLimit: MANAGER_LIMITS.requestBodyMaxBytes,
    logger: options.logger,
    security: { allowedOrigins: config.allowedOrigins, token: config.token, publicPaths: dashboardPublicPaths(config.webDir) },
  });
  app.get('/api/health', async () => ({
    ok: true,
    service: 'svc-chat-manager',
    version: VERSION,
    startedAt,
    instances: instances.list().length,
  }));
  registerInstanceRoutes(app, instances);
  app.get('/api/events', (request, reply) => channel.serve(request, reply));
  registerDashboardRoutes(app, config.webDir);

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await instances.close();
      process.off('exit', killLaunched);
      channel.close();
      await closeHttpApp(app);
    })());

  const host = options.host ?? '127.0.0.1';
  let port: number;
  try {
    await instances.start();
    port = await listenWithFallback(app, { host, port: options.port ?? portFrom(env), token: config.token, tokenEnv: MANAGER_ENV.token });
  } catch (error) {
    await close();
    throw error;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { app, config, instances, channel, url: `http://${urlHost}:${port}`, port, close };
}
