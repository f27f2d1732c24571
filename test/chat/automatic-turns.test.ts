import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startTestChat, waitFor, waitIdle, type EventRecorder, type TestChatServer } from './helpers.js';

interface Message {
  id: string;
  role: string;
  content: string;
  traceId?: string;
  status?: string;
  reason?: string;
  automatic?: { origin: string; label: string };
}
interface Messages {
  session: { title: string };
  messages: Message[];
}

describe('automatic turns are marked as such, and a waiting message can be taken back', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function start(
    options: Parameters<typeof startTestChat>[0] = {},
  ): Promise<{ server: TestChatServer; events: EventRecorder; sessionId: string }> {
    const server = await startTestChat(options);
    cleanup.push(() => server.stop());
    const events = await recordEvents(server.url);
    cleanup.push(() => events.close());
    const { body } = await server.getJson<{ currentSessionId: string }>('/api/sessions');
    return { server, events, sessionId: body.currentSessionId };
  }

  it("saves a goal's continuation prompts as automatic (numbered, with the goal), publishes them so, and leaves the title to a person", async () => {
    const { server, events, sessionId } = await start({ goalMaxContinuations: 2 });
    await server.postJson('/api/goal', { action: 'set', objective: 'tidy the docs' });
    await waitFor('two automatic turns', () => events.events.filter((event) => event.event === 'agent_done').length === 2);
    await waitIdle(server);

    const { body } = await server.getJson<Messages>(`/api/sessions/${sessionId}/messages`);
    const prompts = body.messages.filter((message) => message.role === 'user');
    expect(prompts.map((message) => message.automatic)).toEqual([
      { origin: 'goal', label: 'automatic turn 1 of 2 for goal: tidy the docs' },
      { origin: 'goal', label: 'automatic turn 2 of 2 for goal: tidy the docs' },
    ]);
    // Answers are the agent's: never marked.
    expect(body.messages.filter((message) => message.role === 'assistant').every((message) => message.automatic === undefined)).toBe(true);
    expect(body.session.title).toBe('');
    const published = events.events.filter((event) => event.event === 'message' && event.role === 'user');
    expect(published.map((event) => (event.automatic as { origin: string }).origin)).toEqual(['goal', 'goal']);

    // A person's own message is not marked, and names the session.
    await server.postLines('/api/message', { prompt: 'my own words' });
    const after = await server.getJson<Messages>(`/api/sessions/${sessionId}/messages`);
    const mine = after.body.messages.find((message) => message.content === 'my own words');
    expect(mine?.automatic).toBeUndefined();
    expect(after.body.session.title).toBe('my own words');
  });

  it('marks a PABCD phase prompt as automatic, with its phase and task', async () => {
    const { server, sessionId } = await start();
    await server.postLines('/api/command', { text: '/orc start tidy up' });
    await waitIdle(server);
    const { body } = await server.getJson<Messages>(`/api/sessions/${sessionId}/messages`);
    expect(body.messages.find((message) => message.role === 'user')?.automatic).toEqual({
      origin: 'orc',
      label: 'PABCD plan phase: tidy up',
    });
  });

  it('DELETE /api/sessions/:id/queue/:traceId ends a waiting run cancelled without running it; NOT_FOUND for one that is not waiting', async () => {
    const { server, events, sessionId } = await start();
    const hang = server.postLines('/api/message', { prompt: 'busy [fake:hang]' });
    await events.waitFor('the hang to run', (event) => event.event === 'queue_update' && event.active === true);
    const queued = await fetch(`${server.url}/api/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'never mind' }),
    });
    const traceId = String(queued.headers.get('x-chat-trace-id'));
    await queued.body?.cancel();

    const removed = await fetch(`${server.url}/api/sessions/${sessionId}/queue/${traceId}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    const { body } = await server.getJson<Messages & { queue: { pending: number } }>(`/api/sessions/${sessionId}/messages`);
    expect(body.queue.pending).toBe(0);
    expect(body.messages.find((message) => message.role === 'assistant' && message.traceId === traceId)).toMatchObject({
      status: 'cancelled',
      reason: 'removed from the queue before it started',
    });

    const again = await fetch(`${server.url}/api/sessions/${sessionId}/queue/${traceId}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');

    await server.postLines('/api/command', { text: '/cancel' });
    await hang;
    await waitIdle(server);
  });
});
