import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvents, startTestChat, type EventRecorder, type TestChatServer } from './helpers.js';
import { ensureChatBuild } from '../web/build.js';

// The Bar, over real HTTP against a server built in-process with the fake agents.
describe('svc-chat serve --demo: the Bar', () => {
  let server: TestChatServer;
  let events: EventRecorder;

  beforeAll(async () => {
    server = await startTestChat({ runTimeoutMs: 2000 });
    events = await recordEvents(server.url);
  });
  afterAll(async () => {
    events?.close();
    await server?.stop();
  });

  it('answers GET /api/health', async () => {
    const { status, body } = await server.getJson('/api/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, service: 'svc-chat', demo: true });
  });

  it('streams POST /api/message as NDJSON ending in done ok, and publishes the run on /api/events', async () => {
    const { status, contentType, lines, accepted } = await server.postLines('/api/message', { prompt: 'list files [fake:tool]' });
    expect(status).toBe(200);
    expect(contentType).toBe('application/x-ndjson; charset=utf-8');
    expect(accepted).toMatchObject({ ahead: 0, agent: 'agent-a' });
    expect(lines.map((line) => line.type)).toEqual(['tool', 'text', 'done']);
    expect(lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    const traceId = String(accepted?.traceId);

    const done = await events.waitFor('agent_done', (event) => event.event === 'agent_done' && event.traceId === traceId);
    expect(done).toMatchObject({ topic: 'chat', status: 'ok' });
    const ofRun = events.events.filter((event) => event.traceId === traceId || (event.event === 'message' && event.traceId === traceId));
    expect(ofRun.map((event) => event.event)).toEqual(['message', 'agent_tool', 'agent_output', 'message', 'agent_done']);
    expect(ofRun[0]).toMatchObject({
      role: 'user',
      content: 'list files [fake:tool]',
      id: accepted?.messageId,
      messageId: accepted?.messageId,
    });
    expect(ofRun[1]).toMatchObject({ name: 'Bash', input: { command: 'ls', description: 'List files' } });
    expect(ofRun[2]).toMatchObject({ content: 'I listed the directory: 3 files.' });
    expect(ofRun[3]).toMatchObject({ role: 'assistant', content: 'I listed the directory: 3 files.', status: 'ok' });
    expect(typeof ofRun[3].id).toBe('string');
    expect(typeof ofRun[3].messageId).toBe('string');
    expect(events.events.some((event) => event.topic === 'queue' && event.event === 'queue_update' && event.active === true)).toBe(true);
  });

  it('streams POST /api/command {text:"/status"} as NDJSON', async () => {
    const { status, contentType, lines } = await server.postLines('/api/command', { text: '/status' });
    expect(status).toBe(200);
    expect(contentType).toBe('application/x-ndjson; charset=utf-8');
    expect(lines[0]).toMatchObject({ type: 'text' });
    expect(lines.at(-1)).toMatchObject({
      type: 'done',
      status: 'ok',
      command: 'status',
      data: { demo: true, queue: { pending: 0, active: false } },
    });
  });

  it('writes a trace file of NDJSON lines with ts and traceId under traces/', async () => {
    const { accepted } = await server.postLines('/api/message', { prompt: 'trace me' });
    const traceId = String(accepted?.traceId);
    const file = join(server.home, 'traces', `${traceId}.ndjson`);
    expect(existsSync(file)).toBe(true);
    const records = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      expect(record.traceId).toBe(traceId);
      expect(Number.isNaN(Date.parse(String(record.ts)))).toBe(false);
    }
    expect(records.map((record) => record.type)).toEqual(['queued', 'started', 'spawned', 'text', 'exit', 'done']);
    expect(readdirSync(join(server.home, 'traces')).length).toBeGreaterThanOrEqual(2);
  });

  it('ends a crashing agent with a non-ok done and still runs the next queued message', async () => {
    const crashing = server.postLines('/api/message', { prompt: 'boom [fake:crash]' });
    const next = server.postLines('/api/message', { prompt: 'after the crash' });
    const [crashed, after] = await Promise.all([crashing, next]);
    expect(crashed.lines.at(-1)).toMatchObject({ type: 'done', status: 'crashed' });
    expect(after.accepted).toMatchObject({ ahead: 1 });
    expect(after.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    expect(after.lines.find((line) => line.type === 'text')).toEqual({ type: 'text', content: 'Echo: after the crash' });
  });

  it('ends a hanging agent with a non-ok done after the run timeout and still runs the next queued message', async () => {
    const hanging = server.postLines('/api/message', { prompt: 'wait [fake:hang]' });
    const next = server.postLines('/api/message', { prompt: 'after the hang' });
    const [hung, after] = await Promise.all([hanging, next]);
    expect(hung.lines.at(-1)).toMatchObject({ type: 'done', status: 'timeout', reason: 'no result within 2000 ms' });
    expect(after.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    const saved = events.events.find(
      (event) => event.event === 'message' && event.traceId === hung.accepted?.traceId && event.role === 'assistant',
    );
    expect(saved).toMatchObject({ content: 'Working on it…', status: 'timeout' });
  });

  it('refuses bad bodies before streaming', async () => {
    expect((await server.postLines('/api/message', { prompt: '' })).status).toBe(400);
    expect((await server.postLines('/api/message', { prompt: 'x', agent: 'nope' })).status).toBe(400);
    expect((await server.postLines('/api/message', { prompt: 'a\u0000b' })).status).toBe(400);
    expect((await server.postLines('/api/message', { prompt: 'x'.repeat(70_000) })).lines[0]).toMatchObject({
      error: { code: 'BAD_REQUEST' },
    });
    const unknownSession = await server.postLines('/api/message', { prompt: 'x', sessionId: 'missing' });
    expect(unknownSession.status).toBe(404);
    expect(unknownSession.lines[0]).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const unknownCommand = await server.postLines('/api/command', { text: '/frobnicate' });
    expect(unknownCommand.status).toBe(400);
    expect(unknownCommand.lines[0]).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect((await server.postLines('/api/command', { text: 'no slash' })).status).toBe(400);
    expect((await server.postLines('/api/command', { text: '/steer' })).status).toBe(400);
  });

  it('answers /help and /agents', async () => {
    const help = await server.postLines('/api/command', { text: '/help' });
    expect(String(help.lines[0].content)).toContain('/steer <prompt>');
    const agents = await server.postLines('/api/command', { text: '/agents' });
    const data = agents.lines.at(-1)?.data as { agents: Array<{ id: string; available: boolean }> };
    expect(data.agents.map((agent) => agent.id)).toEqual(['agent-a', 'agent-b', 'agent-c']);
    expect(data.agents.every((agent) => agent.available)).toBe(true);
    const listed = await server.getJson<{ agents: unknown[]; defaultAgent: string }>('/api/agents');
    expect(listed.body.defaultAgent).toBe('agent-a');
  });

  it('runs each agent by name', async () => {
    for (const agent of ['agent-b', 'agent-c']) {
      const { lines, accepted } = await server.postLines('/api/message', { prompt: `hi ${agent}`, agent });
      expect(accepted).toMatchObject({ agent });
      expect(lines.find((line) => line.type === 'text')).toEqual({ type: 'text', content: `Echo: hi ${agent}` });
      expect(lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    }
  });

  it('serves the page', async () => {
    await ensureChatBuild();
    const page = await fetch(`${server.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('/assets/chat.js');
    expect((await fetch(`${server.url}/assets/chat.js`)).headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${server.url}/favicon.svg`)).headers.get('content-type')).toContain('image/svg+xml');
  });
});
