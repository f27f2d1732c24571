import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { FROM_SOURCE, inCheckout } from '../common/checkout.js';
import { MANAGER_LIMITS } from './limits.js';

type Env = Readonly<Record<string, string | undefined>>;

export const MANAGER_ENV = {
  home: 'SVC_CHAT_MANAGER_HOME',
  port: 'SVC_CHAT_MANAGER_PORT',
  token: 'SVC_CHAT_MANAGER_TOKEN',
  workers: 'SVC_CHAT_MANAGER_WORKERS',
  discover: 'SVC_CHAT_MANAGER_DISCOVER',
  allowedOrigins: 'SVC_CHAT_MANAGER_ALLOWED_ORIGINS',
  /** The token the manager sends to workers (the workers' own variable). */
  workerToken: 'SVC_CHAT_TOKEN',
} as const;

export interface PortRange {
  from: number;
  to: number;
}

/** How to start `svc-chat` for a launched worker: the program and the arguments before `serve`. */
export interface WorkerCommand {
  file: string;
  prefixArgs: readonly string[];
}

export interface ManagerConfig {
  readonly home: string;
  readonly instancesFile: string;
  readonly token?: string;
  /** Sent to workers (Authorization: Bearer) unless an instance has its own. */
  readonly workerToken?: string;
  readonly allowedOrigins: readonly string[];
  /** Worker URLs followed from the start. */
  readonly workers: readonly string[];
  readonly discover?: PortRange;
  readonly healthIntervalMs: number;
  readonly discoveryIntervalMs: number;
  /** The built dashboard (dist/web/manager). */
  readonly webDir: string;
  readonly workerCommand: WorkerCommand;
}

export interface ManagerConfigOverrides {
  home?: string;
  token?: string;
  workerToken?: string;
  allowedOrigins?: readonly string[];
  workers?: readonly string[];
  discover?: string;
  healthIntervalMs?: number;
  discoveryIntervalMs?: number;
  webDir?: string;
  workerCommand?: WorkerCommand;
}

/** `svc-chat` as this manager runs: through tsx from src/, or the built program. */
export function defaultWorkerCommand(): WorkerCommand {
  if (FROM_SOURCE) return { file: process.execPath, prefixArgs: ['--import', 'tsx', inCheckout('src', 'cli', 'svc-chat.ts')] };
  return { file: process.execPath, prefixArgs: [inCheckout('bin', 'svc-chat.js')] };
}

/** `3344-3363` (or one port) → a range on 127.0.0.1, at most discoveryPortsMax ports. */
export function parsePortRange(text: string): PortRange {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text.trim());
  const from = Number(match?.[1]);
  const to = Number(match?.[2] ?? match?.[1]);
  if (!match || from < 1 || to > 65535 || to < from)
    throw new Error(`A discovery range is <port> or <from>-<to> within 1-65535 (got "${text}").`);
  if (to - from + 1 > MANAGER_LIMITS.discoveryPortsMax)
    throw new Error(`A discovery range holds at most ${MANAGER_LIMITS.discoveryPortsMax} ports (got ${to - from + 1}).`);
  return { from, to };
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function resolveManagerConfig(env: Env, overrides: ManagerConfigOverrides = {}): ManagerConfig {
  const home = resolve(overrides.home ?? (env[MANAGER_ENV.home] || join(homedir(), '.svc-chat-manager')));
  const discover = overrides.discover ?? env[MANAGER_ENV.discover];
  return {
    home,
    instancesFile: join(home, 'instances.json'),
    token: overrides.token ?? (env[MANAGER_ENV.token] || undefined),
    workerToken: overrides.workerToken ?? (env[MANAGER_ENV.workerToken] || undefined),
    allowedOrigins: [...(overrides.allowedOrigins ?? []), ...list(env[MANAGER_ENV.allowedOrigins])],
    workers: [...(overrides.workers ?? []), ...list(env[MANAGER_ENV.workers])],
    discover: discover ? parsePortRange(discover) : undefined,
    healthIntervalMs: overrides.healthIntervalMs ?? MANAGER_LIMITS.healthIntervalMs,
    discoveryIntervalMs: overrides.discoveryIntervalMs ?? MANAGER_LIMITS.discoveryIntervalMs,
    webDir: overrides.webDir ?? inCheckout('dist', 'web', 'manager'),
    workerCommand: overrides.workerCommand ?? defaultWorkerCommand(),
  };
}
