import { mkdirSync, rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { SHUTDOWN_GRACE_MS, assertBindAllowed, closeHttpApp, listenWithFallback } from '../common/listen.js';
import { isStorageFull, startWithoutIt } from '../common/storage-full.js';
import { effectiveDefaults } from './defaults.js';
import { tuneGarbageCollection } from './gc-tuning.js';
import { buildStudioApp } from './app.js';
import { createStudioContext, type StudioContext, type StudioOptions } from './context.js';
import { removeDescriptorIfOurs, writeDescriptor, type ServerDescriptor } from './descriptor.js';
import { lanesHealth } from './routes/discovery.js';
import { DEFAULT_PORT } from './constants.js';
import { startMaintenance } from './maintenance.js';
import { studioPaths } from './paths.js';
import { acquireStateLock, type StateLock } from './state-lock.js';

export { DEFAULT_PORT } from './constants.js';

export interface StartStudioOptions extends StudioOptions {
  host?: string;
  /** Preferred port (0 = any free). */
  port?: number;
  token?: string;
  allowedOrigins?: readonly string[];
  /** Write server.json and hold the state dir's lock (on by default; tests that run many servers turn it off). */
  descriptor?: boolean;
  /** Run beside other studios on the same state dir (no lock; also SVC_SHARED_HOME=1). */
  sharedHome?: boolean;
  /** Runs after the server closes (e.g. stop demo simulators). */
  onClose?: () => Promise<void>;
  /** Most time to receive a request (default 30 s). */
  requestTimeoutMs?: number;
}

export interface RunningStudio {
  readonly url: string;
  readonly port: number;
  readonly ctx: StudioContext;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * The state dir's lock (state-lock.ts), taken before anything there is opened; none for a studio
 * that shares its dir on purpose or does not advertise itself (tests running many servers).
 */
function takeStateLock(options: StartStudioOptions): StateLock | undefined {
  const env = options.env ?? process.env;
  if (options.descriptor === false || options.sharedHome || env.SVC_SHARED_HOME === '1') return undefined;
  const { home } = studioPaths(env);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return acquireStateLock(home, new Date().toISOString());
}

/** Builds the context and app, binds (with port fallback) and advertises the bound port. */
export async function startStudio(options: StartStudioOptions = {}): Promise<RunningStudio> {
  // A start refused for its settings creates nothing: the bind check comes before the state dir.
  assertBindAllowed({ host: options.host ?? '127.0.0.1', token: options.token });
  tuneGarbageCollection();
  const lock = takeStateLock(options);
  let ctx: StudioContext;
  try {
    // Nothing is written under the state dir before its lock is held: a refused second start leaves the first's files alone.
    options.demo?.prepare?.();
    ctx = await createStudioContext(options);
  } catch (error) {
    lock?.release();
    throw error;
  }
  ctx.secrets.add(options.token);
  try {
    // A bad SVC_API_* value is the server's misconfiguration, not a client's bad request: refuse to start.
    effectiveDefaults(ctx);
  } catch (error) {
    await ctx.close();
    lock?.release();
    throw new Error(`Invalid configuration: ${(error as Error).message}`, { cause: error });
  }
  // Jobs the last run left unfinished: resumed where their kind can, else ended `interrupted` (and published).
  // On a full disk the studio still starts, so history can be read and space freed: they wait for a start with room.
  await ctx.jobs.recover().catch((error: unknown) => startWithoutIt('svc', 'jobs the last run left unfinished are recovered', error));
  const app = buildStudioApp(ctx, {
    allowedOrigins: options.allowedOrigins,
    token: options.token,
    logger: options.logger,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  const host = options.host ?? '127.0.0.1';
  let port: number;
  try {
    port = await listenWithFallback(app, { host, port: options.port ?? DEFAULT_PORT, token: options.token });
  } catch (error) {
    await app.close();
    await ctx.close();
    lock?.release();
    throw error;
  }
  // A wildcard bind is reached (and advertised) through loopback on this machine.
  const advertised = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const urlHost = advertised.includes(':') ? `[${advertised}]` : advertised;
  const url = `http://${urlHost}:${port}`;
  lock?.advertise(url);
  if (options.descriptor !== false) {
    const descriptor = {
      backend: { url },
      port,
      pid: process.pid,
      version: ctx.version,
      startedAt: ctx.startedAt,
      demo: ctx.demo,
      ...(lanesHealth(ctx) as Pick<ServerDescriptor, 'alpha'>),
    };
    // No room to advertise: an older descriptor would send clients to a server that is gone, so it goes
    // (removing frees space, it needs none), and clients find this one at the default port or SVC_SERVER.
    try {
      writeDescriptor(ctx.paths.descriptorFile, descriptor);
    } catch (error) {
      if (isStorageFull(error)) rmSync(ctx.paths.descriptorFile, { force: true });
      startWithoutIt('svc', `server.json is written (clients find ${url} only at the default port or by SVC_SERVER)`, error);
    }
  }

  const maintenance = startMaintenance(ctx, { onError: (error) => app.log.error({ err: error }, 'maintenance failed') });

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      // Jobs first: cancelled, they publish their terminal events while streams are still open
      // (per-request SSE clients learn why), and a job already saving finishes its save.
      await ctx.jobs.stopAll('The studio is shutting down.', SHUTDOWN_GRACE_MS);
      // Then the event streams, so app.close() is not held open by long-lived SSE sockets.
      ctx.channel.close();
      await closeHttpApp(app);
      maintenance.stop();
      await maintenance.idle();
      await ctx.close();
      if (options.descriptor !== false) removeDescriptorIfOurs(ctx.paths.descriptorFile, { pid: process.pid, port });
      lock?.release();
      await options.onClose?.();
    })());

  return { url, port, ctx, app, close };
}
