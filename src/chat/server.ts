import { existsSync, mkdirSync, rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { EventChannel } from '../common/events/channel.js';
import type { EventChannelOptions } from '../common/events/types.js';
import { createHttpApp } from '../common/http-app.js';
import { STORAGE_RESERVE_BYTES_DEFAULT, startWithoutIt } from '../common/storage-full.js';
import { assertBindAllowed, closeHttpApp, listenWithFallback } from '../common/listen.js';
import { ChatService } from './chat-service.js';
import { CHAT_ENV, resolveChatConfig, type ChatConfig, type ChatConfigOverrides } from './config.js';
import { ChatEvents } from './events.js';
import { GoalService } from './goals/goal-service.js';
import { GoalStore } from './goals/goal-store.js';
import { registerTokenProof, TOKEN_PROOF_PATH } from './http/token-proof.js';
import { CHAT_LIMITS } from './limits.js';
import { Orchestrator } from './orchestration/orchestrator.js';
import { goalRoutes } from './routes/goal-routes.js';
import { infoRoutes } from './routes/info-routes.js';
import { orcRoutes } from './routes/orc-routes.js';
import { runRoutes } from './routes/run-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { traceRoutes } from './routes/trace-routes.js';
import { PAGE_PATHS, webRoutes } from './routes/web-routes.js';
import type { ChatRuntime } from './runtime.js';
import { AgentProcessRecords, type ReapReport } from './store/agent-process-records.js';
import { ChatStore } from './store/chat-store.js';
import { TraceStore } from './traces/trace-store.js';

export interface ChatServerOptions extends ChatConfigOverrides {
  /** Environment to read (default process.env); agent programs get an allow-listed part of it. */
  env?: Readonly<Record<string, string | undefined>>;
  events?: EventChannelOptions;
  /** Access token every request must carry (default SVC_CHAT_TOKEN); required off loopback. */
  token?: string;
  logger?: boolean;
  /** Most time to receive a request (default 30 s, `CONNECTION_LIMITS`); then Node answers 408 and closes. */
  requestTimeoutMs?: number;
}

export interface ChatServer {
  readonly app: FastifyInstance;
  readonly config: ChatConfig;
  readonly service: ChatService;
  readonly runtime: ChatRuntime;
  readonly channel: EventChannel;
  /** Agent process groups a previous run of the server left behind, reaped at this start. */
  readonly reaped: readonly ReapReport[];
  /** Runs a previous run of the server left unfinished: the running ones ended `interrupted`, the waiting ones queued again. */
  readonly recovered: { readonly interrupted: readonly string[]; readonly requeued: readonly string[] };
  readonly traces: TraceStore;
  /** Stops runs (agents killed), ends streams, closes the HTTP server and the database. Idempotent. */
  close(): Promise<void>;
}

export interface StartChatServerOptions extends ChatServerOptions {
  host?: string;
  /** Preferred port (0 = any free; default SVC_CHAT_PORT or 3344, next free one if taken). */
  port?: number;
}

export interface RunningChatServer extends ChatServer {
  readonly url: string;
  readonly port: number;
}

/** Builds the chat server (not listening): config, database, event channel, service and routes. */
export function buildChatServer(options: ChatServerOptions = {}): ChatServer {
  const env = options.env ?? process.env;
  const config = resolveChatConfig(env, options);
  // The state dir holds prompts, answers and traces: private to the user.
  mkdirSync(config.home, { recursive: true, mode: 0o700 });
  const store = new ChatStore(config.databaseFile);
  // There is always a current session (the first start creates it).
  store.currentSessionId();
  // Agents a server killed with SIGKILL left running go before anything new starts.
  const processes = new AgentProcessRecords(store.db);
  let reaped: ReturnType<AgentProcessRecords['reapLeftovers']> = [];
  try {
    reaped = processes.reapLeftovers();
  } catch (error) {
    startWithoutIt('svc-chat', 'the agents a stopped server left running are reaped', error);
  }
  for (const report of reaped.filter((entry) => entry.outcome === 'killed')) {
    process.stderr.write(`svc-chat: killed agent process group ${report.pgid} left running by run ${report.traceId}\n`);
  }
  const channel = new EventChannel(options.events);
  const service = new ChatService(config, store, new ChatEvents(channel), env, processes);
  // Before the goal and orchestration state is read: a phase turn still waiting runs, it is not cut.
  let recovered: ReturnType<ChatService['recover']> = { interrupted: [], requeued: [] };
  try {
    recovered = service.recover();
  } catch (error) {
    startWithoutIt('svc-chat', 'runs the last server left unfinished are recovered', error);
  }
  for (const traceId of recovered.interrupted)
    process.stderr.write(`svc-chat: run ${traceId} was running when the server stopped: it ends interrupted\n`);
  const runtime: ChatRuntime = {
    service,
    env,
    goals: new GoalService(service, new GoalStore(store.db), {
      maxContinuations: config.goalMaxContinuations,
      staleMs: config.goalStaleMs,
    }),
    orchestrator: new Orchestrator(service, store.db, config.checks),
  };
  const traces = new TraceStore(config.tracesDir);
  const retention = { retentionDays: config.traceRetentionDays, maxTotalBytes: config.tracesMaxBytes };
  traces.sweep(retention, service.liveTraceIds());
  let lastSweep = Date.now();
  service.onRunEnded(() => {
    // Bounded work per run: at most one sweep a minute.
    if (Date.now() - lastSweep < CHAT_LIMITS.traceSweepIntervalMs) return;
    lastSweep = Date.now();
    traces.sweep(retention, service.liveTraceIds());
  });
  const startedAt = new Date().toISOString();
  // Agents run detached (their own process groups), so they would outlive a server that
  // goes down without close(): a second signal's exit, a crash. This hook kills them then.
  // (Nothing runs when the server itself is SIGKILLed.)
  const killAgents = () => service.killActiveNow();
  process.on('exit', killAgents);

  const token = options.token ?? (env[CHAT_ENV.token] || undefined);
  const app = createHttpApp({
    bodyLimit: CHAT_LIMITS.requestBodyMaxBytes,
    logger: options.logger,
    requestTimeoutMs: options.requestTimeoutMs,
    storage: { dir: config.home, reserveBytes: STORAGE_RESERVE_BYTES_DEFAULT },
    // The page's own files hold no data: a browser loads them without the token, then the page sends it.
    // The token proof is how a client learns it may send the token, so it cannot require it.
    security: { allowedOrigins: config.allowedOrigins, token, publicPaths: [...PAGE_PATHS, TOKEN_PROOF_PATH] },
  });
  registerTokenProof(app, token);
  for (const routes of [infoRoutes, runRoutes, goalRoutes, orcRoutes, sessionRoutes, traceRoutes, webRoutes])
    void app.register(routes, { runtime, traces, startedAt });
  app.get('/api/events', (request, reply) => channel.serve(request, reply));

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      // Runs first: their streams end with a `cancelled` done, so no response holds the HTTP server open.
      await service.close();
      process.off('exit', killAgents);
      channel.close();
      await closeHttpApp(app);
      store.close();
    })());

  return { app, config, service, runtime, channel, reaped, recovered, traces, close };
}

function portFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[CHAT_ENV.port];
  if (!raw) return CHAT_LIMITS.defaultPort;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${CHAT_ENV.port} must be a port number (got ${raw}).`);
  return port;
}

/** Builds and binds the chat server (loopback by default, with port fallback). */
export async function startChatServer(options: StartChatServerOptions = {}): Promise<RunningChatServer> {
  const env = options.env ?? process.env;
  const host = options.host ?? '127.0.0.1';
  const listen = {
    host,
    port: options.port ?? portFrom(env),
    token: options.token ?? (env[CHAT_ENV.token] || undefined),
    tokenEnv: CHAT_ENV.token,
  };
  // A start refused for its settings creates nothing: the checks come before the state dir.
  assertBindAllowed(listen);
  const home = resolveChatConfig(env, options).home;
  const homeExisted = existsSync(home);
  const server = buildChatServer(options);
  let port: number;
  try {
    port = await listenWithFallback(server.app, listen);
  } catch (error) {
    await server.close();
    // A state dir this failed start made holds nothing of the user's yet.
    if (!homeExisted) rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { ...server, url: `http://${urlHost}:${port}`, port };
}
