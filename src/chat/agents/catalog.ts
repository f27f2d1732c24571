// The agent programs the chat server can run, as data: id, adapter, default
// program name, the variable that overrides its path, and the environment
// variables (its own credentials and settings) it is allowed to see.
import { agentA } from './agent-a.js';
import { agentB } from './agent-b.js';
import { agentC } from './agent-c.js';
import type { AgentAdapter } from './types.js';

export const AGENT_IDS = ['agent-a', 'agent-b', 'agent-c'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

export interface AgentSpec {
  readonly id: AgentId;
  readonly adapter: AgentAdapter;
  /** Looked up on PATH when no path is configured. */
  readonly defaultProgram: string;
  /** Environment variable holding the program's path. */
  readonly programEnv: string;
  /** Prefixes of the program's own variables (credentials, config dirs) passed through to it. */
  readonly envPrefixes: readonly string[];
  /** Its stand-in in src/sim/agents, used by `--demo`. */
  readonly fakeScript: string;
}

export const AGENTS: Readonly<Record<AgentId, AgentSpec>> = {
  'agent-a': {
    id: 'agent-a',
    adapter: agentA,
    defaultProgram: 'claude',
    programEnv: 'SVC_CHAT_AGENT_A_BIN',
    envPrefixes: ['ANTHROPIC_', 'CLAUDE_'],
    fakeScript: 'fake-agent-a.mjs',
  },
  'agent-b': {
    id: 'agent-b',
    adapter: agentB,
    defaultProgram: 'codex',
    programEnv: 'SVC_CHAT_AGENT_B_BIN',
    envPrefixes: ['OPENAI_', 'CODEX_'],
    fakeScript: 'fake-agent-b.mjs',
  },
  'agent-c': {
    id: 'agent-c',
    adapter: agentC,
    defaultProgram: 'gemini',
    programEnv: 'SVC_CHAT_AGENT_C_BIN',
    envPrefixes: ['GEMINI_', 'GOOGLE_'],
    fakeScript: 'fake-agent-c.mjs',
  },
};

export const DEFAULT_AGENT: AgentId = 'agent-a';

export const isAgentId = (value: unknown): value is AgentId =>
  typeof value === 'string' && (AGENT_IDS as readonly string[]).includes(value);
