import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { SSE_CAPACITY_BODY } from '../../src/common/events/channel.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startChannelServer, waitFor, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
const requests: ClientRequest[] = [];

afterEach(async () => {
  for (const request of requests.splice(0)) request.destroy();
  for (const server of servers.splice(0)) await server.stop();
});

/** A plain node:http listener, one socket each (no agent pooling). */
function listen(server: TestServer): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = get(
      { host: '127.0.0.1', port: server.port, path: '/api/events', agent: false, headers: { accept: 'text/event-stream' } },
      resolve,
    );
    request.on('error', reject);
    requests.push(request);
  });
}

describe('listener capacity', () => {
  it('refuses the listener after maxListeners with 503 and the exact body, and frees a slot as soon as a client leaves', async () => {
    const server = await startChannelServer({ maxListeners: 3 });
    servers.push(server);
    const admitted = await Promise.all([listen(server), listen(server), listen(server)]);
    expect(admitted.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect(server.channel.listenerCount).toBe(3);

    const refused = await rawRequest(server.url, { path: '/api/events', headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(503);
    expect(refused.body).toBe(SSE_CAPACITY_BODY);
    expect(refused.body).toBe('{"error":"SSE_CAPACITY"}');
    expect(refused.headers['content-type']).toMatch(/^application\/json/);

    requests[0].destroy();
    await waitFor(() => server.channel.listenerCount === 2, 'the slot to be freed');
    const next = await listen(server);
    expect(next.statusCode).toBe(200);
    expect(server.channel.listenerCount).toBe(3);
  });

  it('admits 256 listeners by default and refuses the 257th', async () => {
    const server = await startChannelServer();
    servers.push(server);
    const admitted = await Promise.all(Array.from({ length: 256 }, () => listen(server)));
    expect(admitted.every((response) => response.statusCode === 200)).toBe(true);
    expect(server.channel.listenerCount).toBe(256);
    const refused = await rawRequest(server.url, { path: '/api/events' });
    expect(refused.status).toBe(503);
    expect(refused.body).toBe('{"error":"SSE_CAPACITY"}');
  });

  it('answers 503 in the usual error shape once the channel is closed', async () => {
    const server = await startChannelServer();
    servers.push(server);
    server.channel.close();
    const refused = await rawRequest(server.url, { path: '/api/events' });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});
