import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from '../chat/helpers.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestManager, stoppedAfterEach, waitFor, type TestManager } from './helpers.js';

describe('the manager', () => {
  const track = stoppedAfterEach();
  const chat = async (options: Parameters<typeof startTestChat>[0] = {}): Promise<TestChatServer> =>
    track(await startTestChat(options), (server) => server.stop());
  const manager = async (options: Parameters<typeof startTestManager>[0] = {}): Promise<TestManager> =>
    track(await startTestManager(options), (started) => started.stop());

  it('follows two chat servers: each one’s latest message, agent state, queue, goal and phase, and marks a stopped one offline', async () => {
    const [one, two] = [await chat(), await chat()];
    const boss = await manager();
    const added = await boss.request<{ instance: { id: string; url: string } }>('POST', '/api/instances', { url: one.url });
    expect(added.status).toBe(201);
    expect(added.body.instance.url).toBe(one.url);
    await boss.request('POST', '/api/instances', { url: `${two.url}/` });
    await waitFor('both online', async () => (await boss.instances_()).filter((instance) => instance.health === 'online').length === 2);

    await one.postLines('/api/message', { prompt: 'hello from one' });
    await two.postLines('/api/message', { prompt: 'hello from two [fake:tool]' });
    const first = await boss.waitForInstance(
      'one’s answer',
      (instance) => instance.url === one.url && instance.latestMessage?.content === 'Echo: hello from one',
    );
    expect(first).toMatchObject({
      health: 'online',
      agentState: 'idle',
      queue: { pending: 0, active: false },
      source: 'added',
      managed: false,
    });
    expect(first.latestMessage).toMatchObject({ role: 'assistant', status: 'ok' });
    await boss.waitForInstance(
      'two’s answer',
      (instance) => instance.url === two.url && instance.latestMessage?.content === 'I listed the directory: 3 files.',
    );

    // A run in progress shows as running; the goal and the phase follow.
    const hanging = one.postLines('/api/message', { prompt: 'busy [fake:hang]' });
    await boss.waitForInstance(
      'one running',
      (instance) => instance.url === one.url && instance.agentState === 'running' && instance.queue.active,
    );
    const oneId = added.body.instance.id;
    // The detail carries the running answer's live output.
    await waitFor('the live output', async () => {
      const { body } = await boss.request<{ instance: { sessions: Array<{ liveOutput?: string }> } }>('GET', `/api/instances/${oneId}`);
      return body.instance.sessions.some((session) => session.liveOutput === 'Working on it…');
    });
    await one.postLines('/api/command', { text: '/cancel' });
    await hanging;
    await two.postJson('/api/goal', { action: 'set', objective: 'finish [fake:goaldone]' });
    await boss.waitForInstance('two’s goal', (instance) => instance.url === two.url && instance.goal?.status === 'done');
    await two.postJson('/api/orc', { action: 'start', task: 'plan it' });
    await boss.waitForInstance(
      'two’s phase',
      (instance) => instance.url === two.url && instance.orc.phase === 'plan' && instance.orc.status === 'ok',
    );

    // Detail, recent events and health history.
    const id = added.body.instance.id;
    const detail = await boss.request<{ instance: { sessions: Array<{ lastMessage?: { content: string } }> } }>(
      'GET',
      `/api/instances/${id}`,
    );
    // The cancelled run's partial answer is that session's last message.
    expect(detail.body.instance.sessions.map((session) => session.lastMessage?.content)).toEqual(['Working on it…']);
    const events = await boss.request<{ events: Array<{ event: string }> }>('GET', `/api/instances/${id}/events?limit=50`);
    expect(events.body.events.map((event) => event.event)).toContain('agent_done');
    await waitFor(
      'health samples',
      async () => (await boss.request<{ health: unknown[] }>('GET', `/api/instances/${id}/health`)).body.health.length > 0,
    );

    await one.stop();
    await boss.waitForInstance('one offline', (instance) => instance.url === one.url && instance.health === 'offline');
    expect((await boss.instances_()).find((instance) => instance.url === two.url)?.health).toBe('online');

    expect((await boss.request('DELETE', `/api/instances/${id}`)).body).toEqual({ removed: id });
    expect((await boss.instances_()).map((instance) => instance.url)).toEqual([two.url]);
  });

  it('re-reads a worker’s state after a replay gap (the worker restarted on the same port)', async () => {
    const home = (await import('../chat/helpers.js')).makeTempHome();
    const first = await startTestChat({ home, keepHome: true });
    const boss = await manager();
    await boss.request('POST', '/api/instances', { url: first.url });
    await first.postLines('/api/message', { prompt: 'before the restart' });
    await boss.waitForInstance('the first answer', (instance) => instance.latestMessage?.content === 'Echo: before the restart');
    const port = first.port;
    await first.close();
    await boss.waitForInstance('offline', (instance) => instance.health === 'offline');

    const second = await chat({ home, port });
    // Written while nobody follows: only a re-read of the state can show it.
    await second.postLines('/api/message', { prompt: 'while you were away' });
    const back = await boss.waitForInstance(
      'online again with the new answer',
      (instance) => instance.health === 'online' && instance.latestMessage?.content === 'Echo: while you were away',
      15_000,
    );
    const events = await boss.request<{ events: Array<{ event: string }> }>('GET', `/api/instances/${back.id}/events`);
    expect(events.body.events.map((event) => event.event)).toContain('replay_gap');
  });

  it('follows a worker that needs a token, sending it and never showing it', async () => {
    const token = 'worker-token-0123456789abcdef';
    const worker = await chat({ token });
    const boss = await manager();
    const refused = await boss.request<{ error: { code: string } }>('POST', '/api/instances', { url: worker.url });
    expect([refused.status, refused.body.error.code]).toEqual([502, 'INSTANCE_UNREACHABLE']);
    const added = await boss.request<{ instance: { id: string } }>('POST', '/api/instances', { url: worker.url, token });
    expect(added.status).toBe(201);
    await fetch(`${worker.url}/api/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{"prompt":"secret club"}',
    }).then((response) => response.text());
    await boss.waitForInstance(
      'the answer',
      (instance) => instance.latestMessage?.content === 'Echo: secret club' && instance.health === 'online',
    );
    const everything = JSON.stringify([
      (await boss.request('GET', '/api/instances')).body,
      (await boss.request('GET', `/api/instances/${added.body.instance.id}`)).body,
      (await boss.request('GET', `/api/instances/${added.body.instance.id}/health`)).body,
    ]);
    expect(everything).not.toContain(token);
  });

  it('discovers chat servers on a port range', async () => {
    const worker = await chat();
    const boss = await manager({ discover: `${worker.port}-${worker.port + 2}`, discoveryIntervalMs: 200 });
    const found = await boss.waitForInstance(
      'the discovered worker',
      (instance) => instance.url === worker.url && instance.health === 'online',
    );
    expect(found.source).toBe('discovered');
  });

  it('refuses what it must not follow, with clear codes', async () => {
    const worker = await chat();
    const boss = await manager();
    const add = (body: unknown) => boss.request<{ error: { code: string } }>('POST', '/api/instances', body);
    for (const url of [
      'http://example.com:3344',
      'https://127.0.0.1:3344',
      'http://10.0.0.1:3344',
      'http://127.0.0.1:3344/api/events',
      'http://user:pw@127.0.0.1:3344',
      'http://127.0.0.1',
      'nonsense',
    ]) {
      const answer = await add({ url });
      expect([answer.status, answer.body.error.code], url).toEqual([400, 'INSTANCE_URL_NOT_ALLOWED']);
    }
    expect((await add({})).body.error.code).toBe('BAD_REQUEST');
    // The manager itself answers, but not as a chat server.
    expect((await add({ url: boss.url })).body.error.code).toBe('INSTANCE_UNREACHABLE');
    const ok = await add({ url: worker.url });
    expect(ok.status).toBe(201);
    const twice = await add({ url: worker.url });
    expect([twice.status, twice.body.error.code]).toEqual([409, 'INSTANCE_EXISTS']);
    const id = (ok.body as unknown as { instance: { id: string } }).instance.id;
    expect((await boss.request<{ error: { code: string } }>('POST', `/api/instances/${id}/stop`)).body.error.code).toBe(
      'INSTANCE_NOT_MANAGED',
    );
    expect((await boss.request<{ error: { code: string } }>('GET', '/api/instances/w-00000000')).body.error.code).toBe(
      'INSTANCE_NOT_FOUND',
    );
    expect((await boss.request<{ error: { code: string } }>('GET', '/api/instances/../../etc')).status).toBe(404);
  });

  it('has the servers’ Host, Origin and token protections', async () => {
    const boss = await manager({ token: 'manager-token-0123456789' });
    const get = (path: string, headers: Record<string, string> = {}) => rawRequest(boss.url, { path, headers });
    expect((await get('/api/instances')).status).toBe(401);
    expect((await get('/api/instances', { authorization: 'Bearer manager-token-0123456789' })).status).toBe(200);
    // The dashboard page itself needs no token (it holds no data).
    expect((await get('/')).status).not.toBe(401);

    const open = await manager();
    const rebinding = await rawRequest(open.url, { path: '/api/instances', headers: { host: 'evil.example:80' } });
    expect(rebinding.status).toBe(403);
    const csrf = await rawRequest(open.url, {
      method: 'POST',
      path: '/api/instances',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{"url":"http://127.0.0.1:1"}',
    });
    expect(csrf.status).toBe(403);
    expect(JSON.parse(csrf.body).error.code).toBe('FORBIDDEN_ORIGIN');
  });

  it('keeps what it follows across its own restart; the workers it launched wait, stopped, for a start', async () => {
    const worker = await chat();
    const first = await startTestManager();
    const home = first.home;
    track(home, (dir) => rmSync(dir, { recursive: true, force: true }));
    await first.request('POST', '/api/instances', { url: worker.url });
    const launched = await first.request<{ instance: { id: string; url: string } }>('POST', '/api/instances/launch', { demo: true });
    // Closing the manager stops the worker it launched (cleanly).
    await first.close();
    await expect(fetch(`${launched.body.instance.url}/api/health`)).rejects.toThrow();

    const second = await manager({ home });
    await second.waitForInstance(
      'the added worker online again',
      (instance) => instance.url === worker.url && instance.health === 'online',
    );
    const waiting = (await second.instances_()).find((instance) => instance.id === launched.body.instance.id);
    expect(waiting).toMatchObject({ source: 'launched', managed: true, running: false, health: 'stopped' });
  }, 40_000);

  it('launches, stops, starts, restarts and removes a local worker', async () => {
    const boss = await manager();
    const launched = await boss.request<{ instance: { id: string; url: string; managed: boolean; running: boolean } }>(
      'POST',
      '/api/instances/launch',
      { demo: true },
    );
    expect(launched.status).toBe(201);
    expect(launched.body.instance).toMatchObject({ managed: true, running: true, source: 'launched' });
    const { id } = launched.body.instance;
    await boss.waitForInstance('the launched worker online', (instance) => instance.id === id && instance.health === 'online');
    const health = await fetch(`${launched.body.instance.url}/api/health`);
    expect(await health.json()).toMatchObject({ service: 'svc-chat', demo: true });

    const stopped = await boss.request<{ instance: { health: string; running: boolean } }>('POST', `/api/instances/${id}/stop`);
    expect(stopped.body.instance).toMatchObject({ health: 'stopped', running: false });
    await expect(fetch(`${launched.body.instance.url}/api/health`)).rejects.toThrow();

    await boss.request('POST', `/api/instances/${id}/start`);
    const online = await boss.waitForInstance('started again', (instance) => instance.id === id && instance.health === 'online');
    await fetch(`${online.url}/api/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"prompt":"kept across restarts"}',
    }).then((response) => response.text());
    await boss.request('POST', `/api/instances/${id}/restart`);
    // Its home is kept: the restarted worker still has the message.
    await boss.waitForInstance(
      'restarted with its history',
      (instance) => instance.id === id && instance.health === 'online' && instance.latestMessage?.content === 'Echo: kept across restarts',
      20_000,
    );

    const url = (await boss.instances_()).find((instance) => instance.id === id)?.url as string;
    expect((await boss.request('DELETE', `/api/instances/${id}`)).status).toBe(200);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  }, 60_000);
});
