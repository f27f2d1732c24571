import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventChannel } from '../common/events/channel.js';
import type { EventChannelOptions } from '../common/events/types.js';
import { LANES, type KeyNamespace, type LaneId } from './catalog/lanes.js';
import { resolveKey, type ResolvedKey } from './auth/credentials.js';
import { studioPaths, type StudioPaths } from './paths.js';
import { Settings } from './settings.js';
import { openDatabase, type StudioDatabase } from './store/database.js';
import { VERSION } from './version.js';

/** Upstream base URLs by name: a lane id, or a named endpoint such as `oauthIssuer`. */
export type UpstreamUrls = Partial<Record<LaneId | 'oauthIssuer', string>>;

export interface StudioOptions {
  /** Environment to read (default process.env). Tests pass their own. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Demo mode: lanes point at in-process simulators with placeholder credentials. */
  demo?: {
    upstreams: UpstreamUrls;
    keys: Partial<Record<KeyNamespace, string>>;
    /** Where the demo chat OAuth session file was written. */
    oauthAuthFile?: string;
  };
  /** Base URL overrides, above the environment (tests point lanes at simulators with these). */
  upstreams?: UpstreamUrls;
  events?: EventChannelOptions;
  /** Log requests to stdout. */
  logger?: boolean;
}

/** Everything a route or a lane needs, built once per server. */
export interface StudioContext {
  readonly version: string;
  readonly startedAt: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly paths: StudioPaths;
  readonly settings: Settings;
  readonly db: StudioDatabase;
  readonly events: EventChannel;
  readonly demo: boolean;
  /** Base URL of a lane's upstream (or a named endpoint), after overrides. */
  upstreamUrl(name: LaneId | 'oauthIssuer'): string | undefined;
  /** The key for a namespace: environment, then config file, then demo placeholder. */
  key(namespace: KeyNamespace): ResolvedKey | undefined;
  /** The chat OAuth session file the `oauth` lane reads. */
  oauthAuthFile(): string;
  /** The alpha OAuth session file (`svc alpha login` writes it). */
  alphaAuthFile(): string;
  close(): Promise<void>;
}

export function createStudioContext(options: StudioOptions = {}): StudioContext {
  const env = options.env ?? process.env;
  const paths = studioPaths(env);
  mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  mkdirSync(paths.generatedDir, { recursive: true });
  mkdirSync(paths.thumbnailsDir, { recursive: true });
  const settings = new Settings(paths.configFile);
  const db = openDatabase(paths.databaseFile);
  const events = new EventChannel(options.events);
  const demo = options.demo;

  return {
    version: VERSION,
    startedAt: new Date().toISOString(),
    env,
    paths,
    settings,
    db,
    events,
    demo: Boolean(demo),
    upstreamUrl(name) {
      const spec = name === 'oauthIssuer' ? undefined : LANES[name];
      const fromEnv = name === 'oauthIssuer' ? env.SVC_OAUTH_ISSUER_URL : spec?.baseUrlEnv ? env[spec.baseUrlEnv] : undefined;
      const defaultUrl = name === 'oauthIssuer' ? 'https://auth.openai.com' : spec?.defaultBaseUrl;
      return options.upstreams?.[name] ?? demo?.upstreams[name] ?? fromEnv ?? settings.get().upstreams?.[name] ?? defaultUrl;
    },
    key(namespace) {
      // In demo mode the simulators accept only their placeholder keys, so those win.
      const demoKey = demo?.keys[namespace];
      if (demoKey) return { namespace, value: demoKey, source: 'demo' };
      return resolveKey(namespace, { env, settings });
    },
    alphaAuthFile() {
      return env.SVC_ALPHA_AUTH_FILE || join(paths.home, 'alpha', 'auth.json');
    },
    oauthAuthFile() {
      return demo?.oauthAuthFile ?? settings.get().oauthAuthFile ?? paths.oauthAuthFile;
    },
    async close() {
      events.close();
      db.close();
    },
  };
}
