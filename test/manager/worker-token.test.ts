import { describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from '../chat/helpers.js';
import { startTestManager, stoppedAfterEach, waitFor, type TestManager } from './helpers.js';
import { json, startStandInWorker, type Handler, type StandInWorker } from './stand-in-worker.js';

const TOKEN = 'worker-token-4f1c2a9be07d3365';

/** Whether the token went out in any form in any request the stand-in received. */
const sawToken = (stranger: StandInWorker): boolean => JSON.stringify(stranger.requests).includes(TOKEN);

/** A stand-in bound on the first free port from `from`. */
async function standInFrom(from: number, routes: Record<string, Handler>): Promise<StandInWorker> {
  for (let port = from; port < from + 50; port += 1) {
    try {
      return await startStandInWorker(routes, port);
    } catch {
      // Taken: the next one.
    }
  }
  throw new Error(`no free port from ${from}`);
}

// Issue 33, item 4: the manager's worker token goes only to a worker that proved it holds it.
describe('the manager’s worker token', () => {
  const track = stoppedAfterEach();
  const chat = async (options: Parameters<typeof startTestChat>[0] = {}): Promise<TestChatServer> =>
    track(await startTestChat(options), (server) => server.stop());
  const manager = async (options: Parameters<typeof startTestManager>[0] = {}): Promise<TestManager> =>
    track(await startTestManager(options), (started) => started.stop());
  const stranger = async (from: number, routes: Record<string, Handler>): Promise<StandInWorker> =>
    track(await standInFrom(from, routes), (started) => started.close());

  it('is sent to no stranger a discovery finds, not even one relaying the real worker’s proof', async () => {
    const impostor = await stranger(20000 + Math.floor(Math.random() * 30000), {
      '/api/token-proof': (_request, response) => json(response, { service: 'svc-chat', proof: 'ab'.repeat(32) }),
    });
    const tokenless = await stranger(impostor.port + 1, {});
    const worker = await chat({ token: TOKEN, port: tokenless.port + 1 });
    // Relays the manager's challenge to the real worker and hands its (valid) answer back.
    const relayed: number[] = [];
    const relay = await stranger(worker.port + 1, {
      '/api/token-proof': (request, response) => {
        void fetch(`${worker.url}${request.url}`).then(async (answer) => {
          relayed.push(answer.status);
          json(response, await answer.json());
        });
      },
    });
    const strangers = [impostor, tokenless, relay];

    const boss = await manager({ workerToken: TOKEN, discover: `${impostor.port}-${relay.port}`, discoveryIntervalMs: 60_000 });
    // The real worker proves it holds the token: followed with it.
    await boss.waitForInstance('the real worker online', (instance) => instance.url === worker.url && instance.health === 'online');
    // One that says it needs no token is followed without one.
    await boss.waitForInstance('the token-less stand-in', (instance) => instance.url === tokenless.url && instance.health === 'online');
    await waitFor('every stranger challenged', async () =>
      strangers.every((one) => one.requests.some((request) => request.url.startsWith('/api/token-proof'))),
    );
    await waitFor('the relay’s proof', async () => relayed.length > 0);
    expect(relayed).toEqual([200]);
    // Give the follower of the token-less one a health poll and a state read too.
    await waitFor('the token-less one read', async () => tokenless.requests.some((request) => request.url.startsWith('/api/sessions')));

    for (const one of strangers) expect(sawToken(one)).toBe(false);
    const urls = (await boss.instances_()).map((instance) => instance.url).sort();
    expect(urls).toEqual([worker.url, tokenless.url].sort());
  });

  it('is not sent to a URL added by hand that does not prove it holds it', async () => {
    const impostor = await stranger(20000 + Math.floor(Math.random() * 30000), {
      '/api/token-proof': (_request, response) => json(response, { service: 'svc-chat', proof: 'cd'.repeat(32) }),
    });
    const boss = await manager({ workerToken: TOKEN });
    const withDefault = await boss.request<{ error: { code: string; message: string } }>('POST', '/api/instances', { url: impostor.url });
    expect(withDefault.status).toBe(502);
    expect(withDefault.body.error).toMatchObject({ code: 'INSTANCE_UNREACHABLE' });
    expect(withDefault.body.error.message).toContain('did not prove it holds the token (wrong proof); the token was not sent');
    const withOwn = await boss.request('POST', '/api/instances', { url: impostor.url, token: TOKEN });
    expect(withOwn.status).toBe(502);
    expect(sawToken(impostor)).toBe(false);
    expect(impostor.requests.map((request) => request.url.split('?')[0])).toEqual(['/api/token-proof', '/api/token-proof']);
  });

  it('gives up on a stranger that never answers the challenge, within the request budget', async () => {
    const silent = await stranger(20000 + Math.floor(Math.random() * 30000), { '/api/token-proof': () => {} });
    const boss = await manager({ workerToken: TOKEN });
    const added = await boss.request<{ error: { message: string } }>('POST', '/api/instances', { url: silent.url });
    expect(added.status).toBe(502);
    expect(added.body.error.message).toContain('did not prove it holds the token (no answer in time)');
    expect(sawToken(silent)).toBe(false);
  });

  it('is not sent to a stranger that took a followed worker’s port after it stopped', async () => {
    const worker = await chat({ token: TOKEN, keepHome: true });
    const boss = await manager({ workerToken: TOKEN, healthIntervalMs: 200 });
    await boss.request('POST', '/api/instances', { url: worker.url });
    await boss.waitForInstance('the worker online', (instance) => instance.health === 'online');
    await worker.close();
    await boss.waitForInstance('the worker offline', (instance) => instance.health === 'offline');

    const squatter = await startStandInWorker(
      { '/api/token-proof': (_request, response) => json(response, { service: 'svc-chat', proof: 'ef'.repeat(32) }) },
      worker.port,
    );
    track(squatter, (started) => started.close());
    await waitFor('the follower to knock again (health polls and event stream)', async () => squatter.requests.length >= 3);
    expect(sawToken(squatter)).toBe(false);
    expect(squatter.requests.every((request) => request.url.startsWith('/api/token-proof'))).toBe(true);
    const [instance] = await boss.instances_();
    expect(instance.health).toBe('offline');
  });

  it('is proven by a chat server only for the address and port it listens on', async () => {
    const worker = await chat({ token: TOKEN });
    const nonce = '0123456789abcdef0123456789abcdef';
    const answer = await fetch(`${worker.url}/api/token-proof?nonce=${nonce}`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { service: string; proof: string };
    expect(body.service).toBe('svc-chat');
    expect(body.proof).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(body)).not.toContain(TOKEN);
    expect((await fetch(`${worker.url}/api/token-proof?nonce=short`)).status).toBe(400);
    // Everything else still needs the token.
    expect((await fetch(`${worker.url}/api/health`)).status).toBe(401);
    const open = await chat();
    expect(await (await fetch(`${open.url}/api/token-proof?nonce=${nonce}`)).json()).toEqual({ service: 'svc-chat', proof: null });
  });
});
