import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordEvents, startTestChat, waitFor, waitIdle, type EventRecorder, type TestChatServer } from './helpers.js';

// The spec's public events table, as a client written from the spec alone would parse it:
// each event's named fields with their types (further fields are allowed, never required).
const SPEC_EVENTS = {
  message: z.object({ id: z.string().min(1), role: z.enum(['user', 'assistant']), content: z.string() }),
  agent_tool: z.object({ traceId: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  agent_output: z.object({ traceId: z.string(), content: z.string() }),
  agent_done: z.object({ traceId: z.string(), status: z.string() }),
  queue_update: z.object({ pending: z.number().int().min(0), active: z.boolean() }),
  orc_state: z.object({ phase: z.string(), status: z.string() }),
  steer_started: z.object({ prompt: z.string() }),
  goal_done: z.object({ goalId: z.string() }),
  goal_done_rejected: z.object({ reason: z.string() }),
  goal_pause_detected: z.object({ reason: z.string() }),
  goal_pause_gate_pending: z.object({ reason: z.string() }),
  session_switched: z.object({ sessionId: z.string() }),
} as const;
type SpecEvent = keyof typeof SPEC_EVENTS;

// The spec's provider NDJSON stream table: exactly four line types.
const SPEC_LINE = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thinking'), content: z.string() }),
  z.object({ type: z.literal('text'), content: z.string() }),
  z.object({ type: z.literal('tool'), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('done'), status: z.string() }),
]);

describe('the spec’s twelve public events on /api/events, driven through the fake agents', () => {
  let server: TestChatServer;
  let events: EventRecorder;
  const streams: Array<Array<Record<string, unknown>>> = [];

  const command = async (text: string) => {
    const answer = await server.postLines('/api/command', { text });
    streams.push(answer.lines);
    return answer;
  };
  const message = async (prompt: string) => {
    const answer = await server.postLines('/api/message', { prompt });
    streams.push(answer.lines);
    return answer;
  };
  const seen = (name: SpecEvent) => events.waitFor(name, (event) => event.event === name, 15_000);

  beforeAll(async () => {
    server = await startTestChat({ goalMaxContinuations: 3 });
    events = await recordEvents(server.url);
  });
  afterAll(async () => {
    events?.close();
    await server?.stop();
  });

  it('message carries the saved message’s id as id (the SSE id: line stays the cursor), with role and content', async () => {
    const { accepted } = await message('hello there [fake:thinking] [fake:tool]');
    const user = await events.waitFor(
      'the user message',
      (event) => event.event === 'message' && event.role === 'user' && event.traceId === accepted?.traceId,
    );
    expect(user.id).toBe(accepted?.messageId);
    const assistant = await events.waitFor(
      'the answer',
      (event) => event.event === 'message' && event.role === 'assistant' && event.traceId === accepted?.traceId,
    );
    const saved = await server.getJson<{ messages: Array<{ id: string; role: string; content: string }> }>(
      `/api/sessions/${accepted?.sessionId}/messages`,
    );
    expect(saved.body.messages.at(-1)).toMatchObject({ id: assistant.id, role: 'assistant', content: assistant.content });
    // The resume cursor is another value: resuming from it replays what followed.
    const cursor = events.connection.lastEventId();
    expect(cursor).not.toBe(assistant.id);
    expect(cursor).toMatch(/^[0-9a-f]+-\d+$/);
  });

  it('steer_started names the prompt that took over', async () => {
    const hanging = message('long one [fake:hang]');
    await events.waitFor(
      'the hang',
      (event) => event.event === 'agent_tool' && String((event.input as { command?: string }).command).includes('# pid'),
    );
    await command('/steer take this instead');
    expect((await seen('steer_started')).prompt).toBe('take this instead');
    expect((await hanging).lines.at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
  });

  it('session_switched names the session', async () => {
    const created = await command('/session new Other');
    const id = (created.lines.at(-1)?.data as { session: { id: string } }).session.id;
    expect((await seen('session_switched')).sessionId).toBe(id);
  });

  it('orc_state tells each PABCD transition and phase end with phase and status', async () => {
    await command('/orc start make the build green');
    await events.waitFor('plan ok', (event) => event.event === 'orc_state' && event.phase === 'plan' && event.status === 'ok');
    const states = events.events.filter((event) => event.event === 'orc_state').map((event) => [event.phase, event.status]);
    expect(states).toEqual([
      ['plan', 'running'],
      ['plan', 'ok'],
    ]);
  });

  it('goal_done names the goal the agent completed with evidence', async () => {
    const set = await command('/goal set ship it [fake:goaldone]');
    const goalId = (set.lines.at(-1)?.data as { goal: { goalId: string } }).goal.goalId;
    expect((await seen('goal_done')).goalId).toBe(goalId);
  });

  it('goal_done_rejected gives the reason a done marker without evidence was refused', async () => {
    await command('/goal set prove it [fake:goalnoevidence]');
    expect((await seen('goal_done_rejected')).reason).toBe('the done marker carried no evidence');
    // The goal stays active and its continuation stays bounded.
    await waitFor('the continuation bound', () =>
      events.events.some(
        (event) => event.event === 'goal_update' && String((event.goal as { autoStopped?: string })?.autoStopped).includes('in a row'),
      ),
    );
  });

  it('goal_pause_detected on each pause; goal_pause_gate_pending when the armed gate holds through a continuation', async () => {
    await command('/goal set --replace wait for me [fake:goalpause]');
    const detected = await seen('goal_pause_detected');
    expect(detected.reason).toBe('waiting for a person to review (fake run)');
    const pending = await seen('goal_pause_gate_pending');
    expect(pending.reason).toBe('waiting for a person to review (fake run)');
    const order = events.events.filter((event) => event.event.startsWith('goal_pause')).map((event) => event.event);
    expect(order).toEqual(['goal_pause_detected', 'goal_pause_detected', 'goal_pause_gate_pending']);
  });

  it('publishes every one of the twelve with its named fields', async () => {
    await waitIdle(server);
    for (const [name, schema] of Object.entries(SPEC_EVENTS)) {
      const published = events.events.filter((event) => event.event === name);
      expect(published.length, name).toBeGreaterThan(0);
      for (const event of published) expect(schema.safeParse(event).success, `${name}: ${JSON.stringify(event)}`).toBe(true);
    }
  });

  it('every NDJSON line of those streams is one of the spec’s four types', () => {
    const lines = streams.flat();
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(SPEC_LINE.safeParse(line).success, JSON.stringify(line)).toBe(true);
    expect(new Set(lines.map((line) => line.type))).toEqual(new Set(['thinking', 'text', 'tool', 'done']));
  });
});
