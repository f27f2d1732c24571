import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptedFrom,
  hangPid,
  isAlive,
  recordEvents,
  startTestChat,
  waitFor,
  type EventRecorder,
  type TestChatServer,
} from './helpers.js';

describe('queue, /cancel and /steer', () => {
  let server: TestChatServer;
  let events: EventRecorder;

  beforeAll(async () => {
    server = await startTestChat({ runTimeoutMs: 20_000 });
    events = await recordEvents(server.url);
  });
  afterAll(async () => {
    events?.close();
    await server?.stop();
  });

  it('runs one message at a time per session; later ones wait and queue_update says so', async () => {
    const sessionId = (await server.getJson<{ currentSessionId: string }>('/api/sessions')).body.currentSessionId;
    const since = events.events.length;
    const first = server.postLines('/api/message', { prompt: 'first [fake:slow]' });
    await events.waitFor('the first run to start', (event) => event.event === 'agent_output' && String(event.content).startsWith('Step 1'));
    const second = server.postLines('/api/message', { prompt: 'second' });
    const [a, b] = await Promise.all([first, second]);
    expect(b.accepted).toMatchObject({ ahead: 1 });
    expect(b.lines.map((line) => line.type)).toEqual(['text', 'done']);
    expect(a.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    expect(b.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });

    await waitFor(
      'the idle queue_update',
      () => events.events.slice(since).findLast((event) => event.event === 'queue_update')?.active === false,
    );
    const mine = events.events.slice(since).filter((event) => event.sessionId === sessionId);
    const updates = mine
      .filter((event) => event.event === 'queue_update')
      .map((event) => ({ pending: event.pending, active: event.active }));
    expect(updates).toContainEqual({ pending: 1, active: true });
    expect(updates.at(-1)).toEqual({ pending: 0, active: false });
    // The second run's output starts only after the first one is done.
    const firstDone = mine.findIndex((event) => event.event === 'agent_done' && event.traceId === a.accepted?.traceId);
    const secondOutput = mine.findIndex((event) => event.event === 'agent_output' && event.traceId === b.accepted?.traceId);
    expect(firstDone).toBeGreaterThan(-1);
    expect(secondOutput).toBeGreaterThan(firstDone);
  });

  it('/cancel kills the active run (whole process tree) and the queue moves on', async () => {
    const hanging = server.postLines('/api/message', { prompt: 'forever [fake:hang]' });
    const tool = await events.waitFor(
      'the hang tool call',
      (event) => event.event === 'agent_tool' && String((event.input as { command?: string }).command).includes('# pid'),
    );
    const pid = hangPid((tool.input as { command: string }).command);
    expect(isAlive(pid)).toBe(true);
    const next = server.postLines('/api/message', { prompt: 'next in line' });
    await events.waitFor('the second message to queue', (event) => event.event === 'queue_update' && event.pending === 1);

    const cancel = await server.postLines('/api/command', { text: '/cancel' });
    expect(cancel.lines.at(-1)).toMatchObject({ type: 'done', status: 'ok', data: { cancelled: true, traceId: tool.traceId } });
    const [hung, after] = await Promise.all([hanging, next]);
    expect(hung.lines.at(-1)).toEqual({ type: 'done', status: 'cancelled', reason: 'cancelled by /cancel' });
    expect(after.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    await waitFor('the grandchild to be killed', () => !isAlive(pid), 5000);

    const nothing = await server.postLines('/api/command', { text: '/cancel' });
    expect(nothing.lines.at(-1)).toMatchObject({ data: { cancelled: false } });
  });

  it('/steer stops the active run keeping its partial answer (interrupted) and runs the new prompt next', async () => {
    const since = events.events.length;
    const hanging = server.postLines('/api/message', { prompt: 'long task [fake:hang]' });
    const partial = await waitFor('partial output', () => events.events.slice(since).find((event) => event.event === 'agent_output'));
    expect(partial.content).toBe('Working on it…');
    const queued = server.postLines('/api/message', { prompt: 'queued before the steer' });
    await events.waitFor('the queued message', (event) => event.event === 'queue_update' && event.pending === 1);

    const steer = await server.postLines('/api/command', { text: '/steer do this instead' });
    expect(steer.accepted).toMatchObject({ ahead: 1 });
    expect(steer.lines.find((line) => line.type === 'text')).toEqual({ type: 'text', content: 'Echo: do this instead' });
    expect(steer.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });

    const stopped = await hanging;
    expect(stopped.lines.at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
    const saved = events.events.find(
      (event) => event.event === 'message' && event.role === 'assistant' && event.traceId === partial.traceId,
    );
    expect(saved).toMatchObject({ content: 'Working on it…', status: 'interrupted' });
    expect(events.events.find((event) => event.event === 'steer_started')).toMatchObject({ topic: 'chat', prompt: 'do this instead' });

    // The steered prompt ran before the message that was already waiting.
    const after = await queued;
    expect(after.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    const steerDone = events.events.findIndex((event) => event.event === 'agent_done' && event.traceId === steer.accepted?.traceId);
    const queuedStart = events.events.findIndex((event) => event.event === 'agent_output' && event.traceId === after.accepted?.traceId);
    expect(steerDone).toBeLessThan(queuedStart);

    const history = await server.getJson<{ messages: Array<{ role: string; content: string; status?: string }> }>(
      `/api/sessions/${String(steer.accepted?.sessionId)}/messages`,
    );
    expect(history.body.messages).toContainEqual(
      expect.objectContaining({ role: 'assistant', content: 'Working on it…', status: 'interrupted' }),
    );
  });

  it('/steer with nothing running just runs the prompt', async () => {
    const steer = await server.postLines('/api/command', { text: '/steer quick one' });
    expect(steer.accepted).toMatchObject({ ahead: 0 });
    expect(steer.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
  });

  it('keeps sessions independent: a run in another session does not wait', async () => {
    const since = events.events.length;
    const hanging = server.postLines('/api/message', { prompt: 'busy [fake:hang]' });
    await waitFor('the busy run', () => events.events.slice(since).find((event) => event.event === 'agent_output'));
    const created = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const other = ((await created.json()) as { session: { id: string } }).session.id;
    const elsewhere = await server.postLines('/api/message', { prompt: 'in parallel', sessionId: other });
    expect(elsewhere.accepted).toMatchObject({ ahead: 0, sessionId: other });
    expect(elsewhere.lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    await server.postLines('/api/command', { text: '/cancel' });
    expect((await hanging).lines.at(-1)).toMatchObject({ status: 'cancelled' });
  });

  it('keeps running a message whose client went away; its answer is saved and published', async () => {
    const since = events.events.length;
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'leave early [fake:slow]' }),
      signal: controller.signal,
    });
    // The headers name the run before any line arrives.
    const first = acceptedFrom(response.headers);
    expect(first).toBeDefined();
    const reader = response.body!.getReader();
    expect(JSON.parse(new TextDecoder().decode((await reader.read()).value).split('\n')[0])).toMatchObject({ type: 'text' });
    controller.abort();
    const saved = await waitFor('the saved answer', () =>
      events.events
        .slice(since)
        .find((event) => event.event === 'message' && event.role === 'assistant' && event.traceId === first?.traceId),
    );
    expect(saved).toMatchObject({ status: 'ok', content: expect.stringContaining('Echo: leave early') });
  });
});
