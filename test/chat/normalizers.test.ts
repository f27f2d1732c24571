import { describe, expect, it } from 'vitest';
import { AGENTS, AGENT_IDS, type AgentId } from '../../src/chat/agents/catalog.js';
import type { OutputEvent } from '../../src/chat/agents/types.js';
import { fakeAgentProgram } from '../../src/chat/config.js';
import { AgentProcess } from '../../src/chat/runs/agent-process.js';
import { resolveDone } from '../../src/chat/runs/run-outcome.js';
import { hangPid, isAlive, waitFor } from './helpers.js';

/** Runs a fake agent program through its adapter and normalizer, as the server does. */
async function runFake(agent: AgentId, prompt: string, options: { timeoutMs?: number; maxLineBytes?: number; resumeId?: string } = {}) {
  const events: OutputEvent[] = [];
  const skips: string[] = [];
  const adapter = AGENTS[agent].adapter;
  const normalizer = adapter.createNormalizer();
  const process_ = new AgentProcess({
    program: fakeAgentProgram(agent),
    args: adapter.args(prompt, { resumeId: options.resumeId }),
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: options.timeoutMs ?? 15_000,
    killGraceMs: 300,
    exitDrainMs: 300,
    maxLineBytes: options.maxLineBytes ?? 1024 * 1024,
    stderrTailBytes: 4096,
    normalizer,
    onEvent: (event) => events.push(event),
    onSkip: (kind) => skips.push(kind),
  });
  const end = await process_.finished;
  return { events, end, skips, normalizer, process: process_ };
}

const texts = (events: OutputEvent[]) =>
  events
    .filter((event) => event.type === 'text')
    .map((event) => event.content)
    .join('');

describe.each(AGENT_IDS)('normalizer of %s against its fake program', (agent) => {
  it('echoes a prompt verbatim (one argv element, no shell) and ends ok', async () => {
    const prompt = `--help "; echo pwned $(id) \`whoami\` & | > /tmp/x 'quoted'`;
    const { events, end } = await runFake(agent, prompt);
    expect(texts(events)).toBe(`Echo: ${prompt}`);
    expect(end.done).toEqual({ type: 'done', status: 'ok' });
    expect(end.exitCode).toBe(0);
  });

  it('turns a tool call into {type:"tool", name, input} before the answer', async () => {
    const { events, end } = await runFake(agent, 'list [fake:tool]');
    const tool = events.find((event) => event.type === 'tool');
    expect(tool).toBeDefined();
    expect(tool).toMatchObject({ type: 'tool', input: expect.objectContaining({ command: expect.stringContaining('ls') }) });
    expect(events.findIndex((event) => event.type === 'tool')).toBeLessThan(events.findIndex((event) => event.type === 'text'));
    expect(events.filter((event) => event.type === 'tool')).toHaveLength(1);
    expect(texts(events)).toBe('I listed the directory: 3 files.');
    expect(end.done.status).toBe('ok');
  });

  it('reports thinking where the program has it', async () => {
    const { events } = await runFake(agent, 'why [fake:thinking]');
    const thinking = events.filter((event) => event.type === 'thinking');
    if (agent === 'agent-c') expect(thinking).toHaveLength(0);
    else expect(thinking.length).toBeGreaterThan(0);
    expect(texts(events)).toBe('Echo: why');
  });

  it("ends an error the program reports with a non-ok done carrying the program's reason", async () => {
    const { end } = await runFake(agent, 'x [fake:error]');
    expect(end.done.status).toBe('error');
    expect(end.done.reason).toMatch(/limit|RESOURCE_EXHAUSTED/);
  });

  it('ends a crash mid-stream with crashed, keeping the output before it', async () => {
    const { events, end } = await runFake(agent, 'x [fake:crash]');
    expect(texts(events)).toBe('Starting…');
    expect(end.done.status).toBe('crashed');
    expect(end.done.reason).toContain('exited with code 1: fatal: simulated crash');
    expect(end.stats.skipped).toBe(1);
  });

  it('skips and counts malformed lines, ignores unknown types, and still answers', async () => {
    const { events, end } = await runFake(agent, 'y [fake:malformed]');
    expect(texts(events)).toBe('Echo: y');
    expect(end.done.status).toBe('ok');
    // banner, truncated JSON, a JSON array; the unknown type is valid JSON and ignored.
    expect(end.stats.skipped).toBe(3);
    expect(end.stats.oversized).toBe(1);
  });

  it('reassembles a character split across two writes', async () => {
    const { events, end } = await runFake(agent, 'z [fake:split]');
    expect(texts(events)).toBe('Split: naïve café — 日本語 😀 z');
    expect(end.done.status).toBe('ok');
  });

  it('streams a slow answer in order', async () => {
    const { events, end } = await runFake(agent, 's [fake:slow]');
    const text = texts(events);
    expect(text.indexOf('Step 1 of 4.')).toBeLessThan(text.indexOf('Step 4 of 4.'));
    expect(text.endsWith('Echo: s')).toBe(true);
    expect(events.filter((event) => event.type === 'text').length).toBeGreaterThanOrEqual(5);
    expect(end.done.status).toBe('ok');
  });

  it('times out a hanging program and kills its whole tree (SIGTERM ignored)', async () => {
    const { events, end } = await runFake(agent, 'h [fake:hang]', { timeoutMs: 1500 });
    expect(texts(events)).toBe('Working on it…');
    expect(end.done.status).toBe('timeout');
    const tool = events.find((event) => event.type === 'tool');
    const pid = hangPid(tool?.type === 'tool' ? tool.input.command : undefined);
    await waitFor('the grandchild to be gone', () => !isAlive(pid), 5000);
  });
});

describe('agent-a envelope details', () => {
  it('resumes the conversation it announced, when asked', async () => {
    const first = await runFake('agent-a', 'one');
    const id = first.normalizer.nativeSessionId;
    expect(id).toMatch(/[0-9a-f-]{36}/);
    const second = await runFake('agent-a', 'two', { resumeId: id });
    expect(second.normalizer.nativeSessionId).toBe(id);
  });

  it('emits each content block once when lines repeat a message id, and skips sub-agent text', () => {
    const normalizer = AGENTS['agent-a'].adapter.createNormalizer();
    const line = (content: unknown[], parent: string | null = null) => ({
      type: 'assistant',
      message: { id: 'msg_1', content },
      parent_tool_use_id: parent,
    });
    const text = { type: 'text', text: 'Hello' };
    const tool = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a' } };
    expect(normalizer.accept(line([text]))).toEqual([{ type: 'text', content: 'Hello' }]);
    // A cumulative repeat of the same message adds only the new block.
    expect(normalizer.accept(line([text, tool]))).toEqual([{ type: 'tool', name: 'Read', input: { file_path: 'a' } }]);
    expect(
      normalizer.accept({
        type: 'assistant',
        message: { id: 'msg_2', content: [{ type: 'text', text: 'inner' }] },
        parent_tool_use_id: 'toolu_1',
      }),
    ).toEqual([]);
    expect(normalizer.accept({ type: 'stream_event', event: { type: 'content_block_delta' } })).toEqual([]);
    expect(
      normalizer.accept({
        type: 'assistant',
        message: { id: 'msg_3', content: [{ type: 'text', text: 'Next' }] },
        parent_tool_use_id: null,
      }),
    ).toEqual([{ type: 'text', content: '\n\nNext' }]);
    normalizer.accept({ type: 'result', subtype: 'error_max_turns', is_error: true, errors: ['Reached max turns'] });
    expect(normalizer.report).toEqual({ status: 'error', reason: 'Reached max turns' });
  });
});

describe('agent-b item details', () => {
  it('streams only the growth of an updated message, and rewrites add nothing', () => {
    const normalizer = AGENTS['agent-b'].adapter.createNormalizer();
    const item = (type: string, text: string) => ({ type, item: { id: 'item_0', type: 'agent_message', text } });
    expect(normalizer.accept(item('item.started', ''))).toEqual([]);
    expect(normalizer.accept(item('item.updated', 'Hel'))).toEqual([{ type: 'text', content: 'Hel' }]);
    expect(normalizer.accept(item('item.updated', 'Hello'))).toEqual([{ type: 'text', content: 'lo' }]);
    expect(normalizer.accept(item('item.completed', 'Hello'))).toEqual([]);
    expect(normalizer.accept(item('item.completed', 'Different'))).toEqual([]);
    expect(
      normalizer.accept({
        type: 'item.completed',
        item: { id: 'item_1', type: 'mcp_tool_call', server: 'docs', tool: 'search', arguments: { q: 'x' } },
      }),
    ).toEqual([{ type: 'tool', name: 'docs.search', input: { q: 'x' } }]);
    expect(normalizer.accept({ type: 'future.kind' })).toEqual([]);
    normalizer.accept({ type: 'turn.completed', usage: {} });
    expect(normalizer.report).toEqual({ status: 'ok' });
  });
});

describe('agent-c message details', () => {
  it('drops a whole-message repeat of streamed deltas and separates text after a tool call', () => {
    const normalizer = AGENTS['agent-c'].adapter.createNormalizer();
    const delta = (content: string) => ({ type: 'message', role: 'assistant', content, delta: true });
    expect(normalizer.accept(delta('Hel'))).toEqual([{ type: 'text', content: 'Hel' }]);
    expect(normalizer.accept(delta('lo'))).toEqual([{ type: 'text', content: 'lo' }]);
    expect(normalizer.accept({ type: 'message', role: 'assistant', content: 'Hello' })).toEqual([]);
    expect(normalizer.accept({ type: 'tool_use', tool_name: 'read_file', tool_id: 't1', parameters: { path: 'a' } })).toEqual([
      { type: 'tool', name: 'read_file', input: { path: 'a' } },
    ]);
    expect(normalizer.accept(delta('Done'))).toEqual([{ type: 'text', content: '\n\nDone' }]);
    expect(normalizer.accept({ type: 'message', role: 'user', content: 'prompt echo' })).toEqual([]);
  });
});

describe('resolveDone', () => {
  const base = { exitCode: 0, signal: null, stderrTail: '' };
  it('is ok only for a reported success and exit 0', () => {
    expect(resolveDone({ ...base, report: { status: 'ok' } })).toEqual({ type: 'done', status: 'ok' });
    expect(resolveDone({ ...base, exitCode: 2, report: { status: 'ok' } }).status).toBe('error');
    expect(resolveDone({ ...base }).reason).toBe('exited without a final result line');
  });
  it('lets a requested stop win, and names a missing program', () => {
    expect(resolveDone({ ...base, report: { status: 'ok' }, stopped: { status: 'cancelled', reason: 'by user' } })).toEqual({
      type: 'done',
      status: 'cancelled',
      reason: 'by user',
    });
    expect(resolveDone({ ...base, exitCode: null, spawnError: 'ENOENT' }).reason).toContain('ENOENT');
  });
  it('masks token-like strings from stderr in the crash reason', () => {
    const done = resolveDone({ ...base, exitCode: 1, stderrTail: 'auth failed for key sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n' });
    expect(done.status).toBe('crashed');
    expect(done.reason).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
  });
});
