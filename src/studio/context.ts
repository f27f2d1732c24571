import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { DurableWriter } from '../common/durable-writer.js';
import { ServiceError } from './errors.js';
import type { EventChannel } from '../common/events/channel.js';
import { SecretRegistry } from '../common/secrets.js';
import type { EventBus, EventChannelOptions } from '../common/events/types.js';
import type { DemoGuide, LaneId } from './api/index.js';
import { envKey, resolveKey, type ResolvedKey } from './auth/credentials.js';
import { KEY_NAMESPACES, type KeyNamespace } from './auth/key-namespaces.js';
import { sessionFilePath } from './auth/session-files.js';
import { LaneCooldowns } from './catalog/cooldowns.js';
import { KeyStore } from './keys/store.js';
import { LANES } from './catalog/registry.js';
import { JOB_HANDLERS } from './jobs/kinds.js';
import { DerivedWork } from './media/derived-work.js';
import { Jobs } from './jobs/jobs.js';
import { studioPaths, type StudioPaths } from './paths.js';
import { Settings } from './settings.js';
import type { StudioDatabase } from './store/database.js';
import { openStudioStores, type StorageKinds } from './store/open.js';
import type { AssetStore } from './media/asset-store.js';
import { VERSION } from '../common/version.js';
import type { LaneDemoContent, LaneEnv } from './lanes/env.js';
import type { StudioStore } from './store/repositories.js';
import { studioEvents, type EventOutbox } from './event-bus.js';

/**
 * Upstream base URLs by key: `<lane>` for a lane's main URL, `<lane>.<endpoint>`
 * for its other endpoints (e.g. `oauth.issuer`).
 */
export type UpstreamUrls = Readonly<Record<string, string>>;

/** What the demo (src/demo) gives a studio besides upstreams and credentials: the lanes' part, and the guide. */
export interface DemoContent extends LaneDemoContent {
  /** Answered at GET /api/demo. */
  readonly guide: DemoGuide;
}

export interface StudioOptions {
  /** Environment to read (default process.env). Tests pass their own. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Demo mode: lanes point at in-process simulators with placeholder credentials. */
  demo?: {
    upstreams: UpstreamUrls;
    keys: Partial<Record<KeyNamespace, string>>;
    /** Where the demo session files were written, by lane. */
    sessionFiles: Readonly<Partial<Record<LaneId, string>>>;
    /** Variables that win over the environment in demo mode (the fake cligen program and its home). */
    env?: Readonly<Record<string, string>>;
    /** Writes the demo's files (its session files) under SVC_HOME: called by startStudio once the state dir's lock is held. */
    prepare?: () => void;
  } & DemoContent;
  /** Base URL overrides, above the environment (tests point lanes at simulators with these). */
  upstreams?: UpstreamUrls;
  events?: EventChannelOptions;
  /** Log requests to stdout. */
  logger?: boolean;
}

/**
 * Everything a route needs, built once per server. A lane sees only its `LaneEnv` part (lanes/env.ts):
 * lanes are typed against that and import nothing of this.
 */
export interface StudioContext extends LaneEnv {
  readonly version: string;
  readonly startedAt: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly paths: StudioPaths;
  readonly settings: Settings;
  /** Saved keys and betaAuthMode: config.json, or in demo mode the demo's own file. */
  readonly keyStore: KeyStore;
  /**
   * Every credential the studio holds: keys (registered as they are resolved), session and
   * service-account tokens (as they are read or minted), the access token. Nothing of them
   * reaches an answer, an event, a job row or a log (common/secrets.ts).
   */
  readonly secrets: SecretRegistry;
  /**
   * The open SQLite file of the embedded studio (absent in team mode). Only store/ reads or writes
   * it (everything else goes through `store`); tests use it to inject faults.
   */
  readonly db?: StudioDatabase;
  /** The studio's persistent state, one repository per kind of record (store/repositories.ts: SQLite, or PostgreSQL in team mode). */
  readonly store: StudioStore;
  /** What the state is kept in (store/open.ts): the embedded default, or team mode's PostgreSQL and S3. */
  readonly storage: StorageKinds;
  /**
   * This process's name among the studios sharing its state: host, pid and a nonce. It is the
   * name on the leases of the jobs it runs (jobs/engine.ts) and GET /api/health answers it.
   */
  readonly instance: string;
  /**
   * The studio's events (the EventBus port): what producers publish and in-process consumers read.
   * Replay copies are kept in the event log (`store.events`), so ids stay valid across restarts.
   */
  readonly events: EventBus;
  /** Events written by a store transaction with a row change (a job's end and its terminal event): see EventOutbox. */
  readonly outbox: EventOutbox;
  /** The same events served over HTTP (GET /api/events, a request's own stream, shutdown): only those routes use it. */
  readonly channel: EventChannel;
  /** Every job: create, run, cancel, look up, recover. */
  readonly jobs: Jobs;
  /** Lanes resting after a rate limit (auto skips them). */
  readonly cooldowns: LaneCooldowns;
  /** Work derived from saved assets (thumbnails, the full decode), off the request path. */
  readonly derived: DerivedWork;
  /** Atomic, durable writes on their own thread (the asset store's and the job inputs'). */
  readonly files: DurableWriter;
  /** Where asset bytes live (the AssetStore port; files of the state dir today). Nothing else reads or writes them. */
  readonly assets: AssetStore;
  readonly demo: boolean;
  /** In demo mode, the demo's guide and workflows. */
  readonly demoContent?: DemoContent;
  /** Base URL (no trailing slash) of a lane's endpoint, after overrides; NETWORK_FAILED when none is configured. */
  upstreamUrl(lane: LaneId, endpoint?: string): string;
  /** The configured base URL, or undefined (for reports). */
  configuredUpstreamUrl(lane: LaneId, endpoint?: string): string | undefined;
  /** The key for a namespace: environment, then the saved one, then a demo placeholder. */
  key(namespace: KeyNamespace): ResolvedKey | undefined;
  /** The session file of a lane whose credential is an OAuth session (`oauth`: the chat CLI's; `alpha`: `svc alpha login` writes it). */
  sessionFile(lane: LaneId): string;
  close(): Promise<void>;
}

/** The password in a database URL, if it has one. */
function databasePassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** Builds a studio's context; its stores are open (team mode's connected, their schema made) when it answers. */
export async function createStudioContext(options: StudioOptions = {}): Promise<StudioContext> {
  // In demo mode the simulators' programs win, as their placeholder keys do.
  const env = options.demo?.env ? { ...(options.env ?? process.env), ...options.demo.env } : (options.env ?? process.env);
  const paths = studioPaths(env);
  // The state is the user's own (keys, sessions, images): private directories, whoever created them first.
  for (const dir of [paths.home, paths.generatedDir, paths.thumbnailsDir, paths.jobInputsDir]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const settings = new Settings(paths.configFile);
  const files = new DurableWriter();
  const stores = await openStudioStores({ env, paths, files }).catch(async (error: unknown) => {
    await files.close();
    throw error;
  });
  const { store } = stores;
  // Over a shared log (team mode) the bus sends every event live from the log, any studio's.
  const studioEventsOf = studioEvents(store.events, options.events);
  const { channel } = studioEventsOf;
  try {
    await studioEventsOf.ready;
  } catch (error) {
    studioEventsOf.close();
    await stores.close().catch(() => {});
    await files.close();
    throw error;
  }
  const demo = options.demo;
  const keyStore = KeyStore.of(paths, settings, Boolean(demo));
  // The keys it starts with, used or not: a vendor may echo any key it was ever sent.
  const secrets = new SecretRegistry().hold();
  for (const namespace of Object.keys(KEY_NAMESPACES) as KeyNamespace[])
    secrets.add(envKey(namespace, env), keyStore.get(namespace), demo?.keys[namespace]);
  // Team mode's credentials: the bucket's secret and the database's password never reach an answer or a log either.
  secrets.add(env.AWS_SECRET_ACCESS_KEY, env.AWS_SESSION_TOKEN, databasePassword(env.SVC_DATABASE_URL));

  const configuredUpstreamUrl = (lane: LaneId, endpoint = 'base'): string | undefined => {
    const spec = LANES[lane].endpoints[endpoint];
    if (!spec) return undefined;
    const key = endpoint === 'base' ? lane : `${lane}.${endpoint}`;
    const url =
      options.upstreams?.[key] ?? demo?.upstreams[key] ?? (env[spec.env] || undefined) ?? settings.get().upstreams?.[key] ?? spec.default;
    return url?.replace(/\/+$/, '');
  };

  const ctx: StudioContext = {
    version: VERSION,
    startedAt: new Date().toISOString(),
    env,
    paths,
    settings,
    keyStore,
    secrets,
    db: stores.db,
    store,
    storage: stores.kinds,
    instance: `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`,
    events: studioEventsOf.bus,
    outbox: studioEventsOf.outbox,
    channel,
    jobs: undefined as unknown as Jobs,
    cooldowns: new LaneCooldowns(),
    derived: new DerivedWork(),
    files,
    assets: stores.assets,
    demo: Boolean(demo),
    records: { flowWorkflows: store.flowWorkflows },
    demoContent: demo ? { guide: demo.guide, flowWorkflows: demo.flowWorkflows } : undefined,
    configuredUpstreamUrl,
    upstreamUrl(lane, endpoint = 'base') {
      const url = configuredUpstreamUrl(lane, endpoint);
      if (!url) {
        const variable = LANES[lane].endpoints[endpoint]?.env;
        throw new ServiceError(
          'NETWORK_FAILED',
          `No upstream URL is configured for the ${lane} lane${variable ? `: set ${variable}` : ''}.`,
          { details: { lane, endpoint } },
        );
      }
      return url;
    },
    key(namespace) {
      // A key saved in the demo (its simulators take any key: demoAcceptsKey) replaces its placeholder, as a saved key would.
      const resolved = resolveKey(namespace, { env, store: ctx.keyStore, demoKey: demo?.keys[namespace] });
      // A key saved since the start is registered on its first use, before any vendor sees it.
      secrets.add(resolved?.value);
      return resolved;
    },
    sessionFile(lane) {
      return sessionFilePath(LANES[lane], { env, home: paths.home, settings: settings.get(), demoFile: demo?.sessionFiles[lane] });
    },
    async close() {
      // Thumbnails under way finish (they write the database); the ones not started wait for the next start.
      await ctx.derived.stop();
      await ctx.files.close();
      studioEventsOf.close();
      // The events of the last turn are written (the log's close), then the stores let go.
      await stores.close();
      secrets.release();
    },
  };
  // The job service needs the finished context (its handlers run lanes with it).
  (ctx as { jobs: Jobs }).jobs = new Jobs(ctx, stores.jobs, JOB_HANDLERS);
  return ctx;
}
