import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startTestChat, waitIdle, type TestChatServer } from './helpers.js';

interface Session {
  id: string;
  title: string;
}

describe('renaming and deleting sessions', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function start(): Promise<TestChatServer> {
    const server = await startTestChat();
    cleanup.push(() => server.stop());
    return server;
  }
  const call = async (server: TestChatServer, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>) };
  };

  it('PATCH renames (trimmed, bounded); an empty title lets the next prompt name it', async () => {
    const server = await start();
    const { body } = await server.getJson<{ currentSessionId: string }>('/api/sessions');
    const renamed = await call(server, 'PATCH', `/api/sessions/${body.currentSessionId}`, { title: '  Release notes  ' });
    expect(renamed).toMatchObject({ status: 200, body: { session: { id: body.currentSessionId, title: 'Release notes' } } });
    expect((await call(server, 'PATCH', `/api/sessions/${body.currentSessionId}`, { title: 'x'.repeat(81) })).body).toMatchObject({
      error: { code: 'BAD_REQUEST' },
    });
    expect((await call(server, 'PATCH', '/api/sessions/nope', { title: 'a' })).body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    await call(server, 'PATCH', `/api/sessions/${body.currentSessionId}`, { title: '' });
    await server.postLines('/api/message', { prompt: 'names it' });
    const after = await server.getJson<{ sessions: Session[] }>('/api/sessions');
    expect(after.body.sessions.find((session) => session.id === body.currentSessionId)?.title).toBe('names it');
  });

  it('DELETE removes a session and its messages; the current one is replaced (session_switched); a busy one is refused', async () => {
    const server = await start();
    const events = await recordEvents(server.url);
    cleanup.push(() => events.close());
    const first = (await server.getJson<{ currentSessionId: string }>('/api/sessions')).body.currentSessionId;
    await server.postLines('/api/message', { prompt: 'keep me' });
    const second = (await server.postJson<{ session: Session }>('/api/sessions', { switch: true })).body.session.id;
    await server.postLines('/api/message', { prompt: 'delete me', sessionId: second });

    // Busy: an answer runs in it.
    const hang = server.postLines('/api/message', { prompt: 'busy [fake:hang]', sessionId: second });
    await events.waitFor(
      'the hang to run',
      (event) => event.event === 'queue_update' && event.sessionId === second && event.active === true,
    );
    expect(await call(server, 'DELETE', `/api/sessions/${second}`)).toMatchObject({
      status: 409,
      body: { error: { code: 'SESSION_BUSY' } },
    });
    await server.postLines('/api/command', { text: '/cancel', sessionId: second });
    await hang;
    await waitIdle(server);

    expect((await call(server, 'DELETE', `/api/sessions/${second}`)).status).toBe(204);
    await events.waitFor('the switch away', (event) => event.event === 'session_switched' && event.sessionId === first);
    const { body } = await server.getJson<{ sessions: Session[]; currentSessionId: string }>('/api/sessions');
    expect(body.sessions.map((session) => session.id)).toEqual([first]);
    expect(body.currentSessionId).toBe(first);
    expect((await call(server, 'GET', `/api/sessions/${second}/messages`)).status).toBe(404);
    expect((await call(server, 'DELETE', `/api/sessions/${second}`)).body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('refuses to delete the session the open goal runs in', async () => {
    const server = await start();
    const current = (await server.getJson<{ currentSessionId: string }>('/api/sessions')).body.currentSessionId;
    await server.postJson('/api/goal', { action: 'set', objective: 'stay here' });
    await waitIdle(server);
    expect(await call(server, 'DELETE', `/api/sessions/${current}`)).toMatchObject({
      status: 409,
      body: { error: { code: 'SESSION_BUSY', message: expect.stringContaining('goal') } },
    });
  });
});
