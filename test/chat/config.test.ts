import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveChatConfig } from '../../src/chat/config.js';
import { splitUtf8 } from '../../src/chat/events.js';
import { CHAT_LIMITS } from '../../src/chat/limits.js';
import { makeTempHome } from './helpers.js';

describe('resolveChatConfig', () => {
  const homes: string[] = [];
  const home = () => {
    const dir = makeTempHome();
    homes.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('defaults: real program names on PATH, agent-a, the spec-free limits', () => {
    const dir = home();
    const config = resolveChatConfig({ SVC_CHAT_HOME: dir });
    expect(config.home).toBe(dir);
    expect(config.databaseFile).toBe(join(dir, 'chat.db'));
    expect(config.tracesDir).toBe(join(dir, 'traces'));
    expect(config.defaultAgent).toBe('agent-a');
    expect(config.programs['agent-b']).toEqual({ file: 'codex', prefixArgs: [] });
    expect(config.runTimeoutMs).toBe(CHAT_LIMITS.runTimeoutMs);
    expect(config.demo).toBe(false);
  });

  it('reads the goal, check and trace settings: option > environment > config.json > default, refusing bad values by name', () => {
    const dir = home();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ goalMaxContinuations: 3, traceRetentionDays: 7, checks: 'make check' }));
    const config = resolveChatConfig(
      { SVC_CHAT_HOME: dir, SVC_CHAT_GOAL_MAX_CONTINUATIONS: '4', SVC_CHAT_TRACES_MAX_BYTES: '1000' },
      { traceMaxBytes: 500 },
    );
    expect(config).toMatchObject({
      goalMaxContinuations: 4,
      traceRetentionDays: 7,
      tracesMaxBytes: 1000,
      traceMaxBytes: 500,
      checks: 'make check',
      goalStaleMs: CHAT_LIMITS.goalStaleMs,
    });
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir, SVC_CHAT_GOAL_STALE_MS: '-5' })).toThrow(
      'SVC_CHAT_GOAL_STALE_MS must be a positive integer (got -5).',
    );
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir }, { traceRetentionDays: 1.5 })).toThrow(
      'traceRetentionDays must be a positive integer',
    );
  });

  it('reads program paths from the environment over the config file; scripts run under Node', () => {
    const dir = home();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        agents: { 'agent-b': { program: '/opt/b' }, 'agent-c': { program: '/opt/c' } },
        defaultAgent: 'agent-c',
        runTimeoutMs: 5000,
        agentEnv: ['EXTRA'],
      }),
    );
    const config = resolveChatConfig({
      SVC_CHAT_HOME: dir,
      SVC_CHAT_AGENT_A_BIN: '/tools/fake.mjs',
      SVC_CHAT_AGENT_C_BIN: '/usr/local/bin/c',
      SVC_CHAT_AGENT_ENV: 'ONE, TWO',
    });
    expect(config.programs['agent-a']).toEqual({ file: process.execPath, prefixArgs: ['/tools/fake.mjs'] });
    expect(config.programs['agent-b']).toEqual({ file: '/opt/b', prefixArgs: [] });
    expect(config.programs['agent-c']).toEqual({ file: '/usr/local/bin/c', prefixArgs: [] });
    expect(config.defaultAgent).toBe('agent-c');
    expect(config.runTimeoutMs).toBe(5000);
    expect(config.agentEnvNames).toEqual(['ONE', 'TWO', 'EXTRA']);
  });

  it('uses the fake programs in demo mode, unless a program is given explicitly', () => {
    const config = resolveChatConfig({ SVC_CHAT_HOME: home() }, { demo: true, programs: { 'agent-c': { file: '/x', prefixArgs: [] } } });
    expect(config.programs['agent-a'].prefixArgs[0]).toMatch(/src\/sim\/agents\/fake-agent-a\.mjs$/);
    expect(config.programs['agent-c']).toEqual({ file: '/x', prefixArgs: [] });
  });

  it('refuses bad values at start', () => {
    const dir = home();
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir, SVC_CHAT_RUN_TIMEOUT_MS: 'soon' })).toThrow(/SVC_CHAT_RUN_TIMEOUT_MS/);
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir, SVC_CHAT_AGENT: 'agent-z' })).toThrow(/agent-z/);
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'config.json'), '{ nope');
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: join(dir, 'bad') })).toThrow(/config\.json is not valid JSON/);
  });

  it('refuses a run timeout longer than a timer can wait (it would fire at once), from any source', () => {
    const dir = home();
    const max = CHAT_LIMITS.runTimeoutMaxMs;
    expect(max).toBe(2147483647);
    expect(resolveChatConfig({ SVC_CHAT_HOME: dir, SVC_CHAT_RUN_TIMEOUT_MS: String(max) }).runTimeoutMs).toBe(max);
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir, SVC_CHAT_RUN_TIMEOUT_MS: '3000000000' })).toThrow(
      'SVC_CHAT_RUN_TIMEOUT_MS must be at most 2147483647 (got 3000000000).',
    );
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir }, { runTimeoutMs: max + 1 })).toThrow(/runTimeoutMs must be at most 2147483647/);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ runTimeoutMs: 2 ** 32 }));
    expect(() => resolveChatConfig({ SVC_CHAT_HOME: dir })).toThrow(/runTimeoutMs in config\.json must be at most 2147483647/);
  });
});

describe('splitUtf8', () => {
  it('cuts text into pieces of at most N bytes without splitting a character', () => {
    const text = 'aé日😀'.repeat(100);
    const pieces = splitUtf8(text, 10);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(10);
    expect(splitUtf8('short', 10)).toEqual(['short']);
  });
});
