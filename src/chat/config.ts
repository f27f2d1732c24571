import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readJsonFile } from '../common/json-file.js';
import { inCheckout } from '../common/checkout.js';
import { AGENTS, AGENT_IDS, DEFAULT_AGENT, isAgentId, type AgentId } from './agents/catalog.js';
import { isObject } from './agents/fields.js';
import { CHAT_LIMITS } from './limits.js';
import type { AgentProgram } from './runs/agent-process.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Everything the chat server reads from its environment, config file and options, resolved once. */
export interface ChatConfig {
  /** The state dir: database, traces, config file. */
  readonly home: string;
  readonly databaseFile: string;
  readonly tracesDir: string;
  readonly configFile: string;
  /** Working directory of every agent run. */
  readonly workDir: string;
  readonly demo: boolean;
  readonly defaultAgent: AgentId;
  readonly programs: Readonly<Record<AgentId, AgentProgram>>;
  /** Extra variable names passed to agent programs (besides the allow-list). */
  readonly agentEnvNames: readonly string[];
  readonly runTimeoutMs: number;
  readonly killGraceMs: number;
  readonly exitDrainMs: number;
  readonly maxLineBytes: number;
  /** Per NDJSON response: bytes queued for a client that does not read before it is cut. */
  readonly streamMaxBufferedBytes: number;
  readonly allowedOrigins: readonly string[];
  readonly goalMaxContinuations: number;
  readonly goalStaleMs: number;
  /** What the Check phase asks the agent to run. */
  readonly checks: string;
  readonly traceRetentionDays: number;
  readonly tracesMaxBytes: number;
  readonly traceMaxBytes: number;
}

/** Options that win over the environment and the config file (the CLI's flags, tests). */
export interface ChatConfigOverrides {
  home?: string;
  workDir?: string;
  /** Agent programs are the fake ones of src/sim/agents. */
  demo?: boolean;
  defaultAgent?: AgentId;
  programs?: Partial<Record<AgentId, AgentProgram>>;
  runTimeoutMs?: number;
  killGraceMs?: number;
  exitDrainMs?: number;
  maxLineBytes?: number;
  streamMaxBufferedBytes?: number;
  allowedOrigins?: readonly string[];
  goalMaxContinuations?: number;
  goalStaleMs?: number;
  checks?: string;
  traceRetentionDays?: number;
  tracesMaxBytes?: number;
  traceMaxBytes?: number;
}

/** `{home}/config.json`; every key optional. */
interface ChatConfigFile {
  defaultAgent?: string;
  workDir?: string;
  runTimeoutMs?: number;
  allowedOrigins?: string[];
  agentEnv?: string[];
  agents?: Partial<Record<string, { program?: string }>>;
  goalMaxContinuations?: number;
  goalStaleMs?: number;
  checks?: string;
  traceRetentionDays?: number;
  tracesMaxBytes?: number;
  traceMaxBytes?: number;
}

export const CHAT_ENV = {
  home: 'SVC_CHAT_HOME',
  port: 'SVC_CHAT_PORT',
  token: 'SVC_CHAT_TOKEN',
  defaultAgent: 'SVC_CHAT_AGENT',
  workDir: 'SVC_CHAT_WORKDIR',
  runTimeoutMs: 'SVC_CHAT_RUN_TIMEOUT_MS',
  agentEnv: 'SVC_CHAT_AGENT_ENV',
  allowedOrigins: 'SVC_CHAT_ALLOWED_ORIGINS',
  goalMaxContinuations: 'SVC_CHAT_GOAL_MAX_CONTINUATIONS',
  goalStaleMs: 'SVC_CHAT_GOAL_STALE_MS',
  checks: 'SVC_CHAT_CHECKS',
  traceRetentionDays: 'SVC_CHAT_TRACE_RETENTION_DAYS',
  tracesMaxBytes: 'SVC_CHAT_TRACES_MAX_BYTES',
  traceMaxBytes: 'SVC_CHAT_TRACE_MAX_BYTES',
} as const;

/** What the Check phase asks for when no check command is configured. */
export const DEFAULT_CHECKS = "the project's tests, typecheck and lint";

export const chatHome = (env: Env): string => resolve(env[CHAT_ENV.home] || join(homedir(), '.svc-chat'));

/** A configured path: a `.js`/`.mjs` script runs under this Node; anything else is executed directly. */
export function programFromPath(path: string): AgentProgram {
  return /\.m?js$/.test(path) ? { file: process.execPath, prefixArgs: [resolve(path)] } : { file: path, prefixArgs: [] };
}

/**
 * The fake program of an agent (`--demo`): a plain script of the checkout's src/sim/agents, which no build copies,
 * run by its path like any configured program (the chat server loads no simulator code).
 */
export function fakeAgentProgram(agent: AgentId): AgentProgram {
  const script = inCheckout('src', 'sim', 'agents', AGENTS[agent].fakeScript);
  if (!existsSync(script)) throw new Error(`Fake agent program ${AGENTS[agent].fakeScript} is missing: ${script}.`);
  return programFromPath(script);
}

function positiveInteger(name: string, value: string | number | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`${name} must be a positive integer (got ${String(value)}).`);
  if (number > max) throw new Error(`${name} must be at most ${max} (got ${String(value)}).`);
  return number;
}

/** The run timeout from the first source that sets it, named in the error when it is out of range. */
function runTimeout(env: Env, file: ChatConfigFile, override: number | undefined): number {
  const max = CHAT_LIMITS.runTimeoutMaxMs;
  const fromEnv = env[CHAT_ENV.runTimeoutMs];
  return (
    positiveInteger('runTimeoutMs', override, max) ??
    positiveInteger(CHAT_ENV.runTimeoutMs, fromEnv, max) ??
    positiveInteger('runTimeoutMs in config.json', file.runTimeoutMs, max) ??
    CHAT_LIMITS.runTimeoutMs
  );
}

/** A positive integer setting from the first source that sets it: override, environment, config.json, default. */
function integerSetting(
  key: 'goalMaxContinuations' | 'goalStaleMs' | 'traceRetentionDays' | 'tracesMaxBytes' | 'traceMaxBytes',
  env: Env,
  file: ChatConfigFile,
  overrides: ChatConfigOverrides,
  fallback: number,
): number {
  return (
    positiveInteger(key, overrides[key]) ??
    positiveInteger(CHAT_ENV[key], env[CHAT_ENV[key]]) ??
    positiveInteger(`${key} in config.json`, file[key]) ??
    fallback
  );
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function resolveChatConfig(env: Env, overrides: ChatConfigOverrides = {}): ChatConfig {
  const home = resolve(overrides.home ?? chatHome(env));
  const configFile = join(home, 'config.json');
  const raw = readJsonFile<unknown>(configFile, {});
  const file: ChatConfigFile = isObject(raw) ? (raw as ChatConfigFile) : {};
  const demo = overrides.demo ?? false;

  const defaultAgent = overrides.defaultAgent ?? env[CHAT_ENV.defaultAgent] ?? file.defaultAgent ?? DEFAULT_AGENT;
  if (!isAgentId(defaultAgent)) throw new Error(`Unknown default agent "${defaultAgent}"; known: ${AGENT_IDS.join(', ')}.`);

  const programs = Object.fromEntries(
    AGENT_IDS.map((id): [AgentId, AgentProgram] => {
      const override = overrides.programs?.[id];
      if (override) return [id, override];
      if (demo) return [id, fakeAgentProgram(id)];
      const path = env[AGENTS[id].programEnv] || file.agents?.[id]?.program;
      return [id, path ? programFromPath(path) : { file: AGENTS[id].defaultProgram, prefixArgs: [] }];
    }),
  ) as Record<AgentId, AgentProgram>;

  return {
    home,
    databaseFile: join(home, 'chat.db'),
    tracesDir: join(home, 'traces'),
    configFile,
    workDir: resolve(overrides.workDir ?? (env[CHAT_ENV.workDir] || file.workDir || process.cwd())),
    demo,
    defaultAgent,
    programs,
    agentEnvNames: [...list(env[CHAT_ENV.agentEnv]), ...(file.agentEnv ?? [])],
    runTimeoutMs: runTimeout(env, file, overrides.runTimeoutMs),
    killGraceMs: overrides.killGraceMs ?? CHAT_LIMITS.killGraceMs,
    exitDrainMs: overrides.exitDrainMs ?? CHAT_LIMITS.exitDrainMs,
    maxLineBytes: overrides.maxLineBytes ?? CHAT_LIMITS.agentLineMaxBytes,
    streamMaxBufferedBytes: overrides.streamMaxBufferedBytes ?? CHAT_LIMITS.streamMaxBufferedBytes,
    allowedOrigins: [...(overrides.allowedOrigins ?? []), ...list(env[CHAT_ENV.allowedOrigins]), ...(file.allowedOrigins ?? [])],
    goalMaxContinuations: integerSetting('goalMaxContinuations', env, file, overrides, CHAT_LIMITS.goalMaxContinuations),
    goalStaleMs: integerSetting('goalStaleMs', env, file, overrides, CHAT_LIMITS.goalStaleMs),
    checks: overrides.checks ?? (env[CHAT_ENV.checks] || file.checks || DEFAULT_CHECKS),
    traceRetentionDays: integerSetting('traceRetentionDays', env, file, overrides, CHAT_LIMITS.traceRetentionDays),
    tracesMaxBytes: integerSetting('tracesMaxBytes', env, file, overrides, CHAT_LIMITS.tracesMaxBytes),
    traceMaxBytes: integerSetting('traceMaxBytes', env, file, overrides, CHAT_LIMITS.traceMaxBytes),
  };
}
