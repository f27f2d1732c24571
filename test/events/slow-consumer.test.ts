import { connect, type Socket } from 'node:net';
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { openRawStream, startChannelServer, waitFor, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.stop();
});

/** A raw client that sends the request and then never reads. */
function stalledListener(server: TestServer, cursor?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.pause();
      const resume = cursor ? `Last-Event-ID: ${cursor}\r\n` : '';
      socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAccept: text/event-stream\r\n${resume}\r\n`);
      resolve(socket);
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** Reads what a paused socket holds, until the server's close. */
function drain(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.resume();
  });
}

describe('slow consumers', () => {
  it('cuts a client that does not read, without holding back the others; the cut client resumes by cursor', async () => {
    const server = await startChannelServer({ maxBufferedBytes: 256 * 1024, replaySize: 10_000 });
    servers.push(server);
    const fastIds: string[] = [];
    const fast = new EventSource(`${server.url}/api/events`);
    fast.onmessage = (message) => fastIds.push(message.lastEventId);
    try {
      const slow = await stalledListener(server);
      await waitFor(() => server.channel.listenerCount === 2, 'both listeners');

      const payload = 'p'.repeat(32 * 1024);
      const published: string[] = [];
      // Until the kernel buffers of the stalled socket are full and ours pass the limit; bounded.
      while (server.channel.listenerCount === 2 && published.length < 5000) {
        published.push(server.channel.publish('test', 'big', { payload }).id);
        // The fast reader lives in this process too: let it read between publishes.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(server.channel.listenerCount).toBe(1);
      await waitFor(() => fastIds.length === published.length, 'the fast listener to get everything');
      expect(fastIds).toEqual(published);

      // The cut client got complete frames up to some id; the rest comes back by cursor.
      const text = await drain(slow);
      const seen = [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1]);
      const complete = seen.filter((id) => text.includes(`"id":"${id}"}\n\n`));
      expect(complete).toEqual(published.slice(0, complete.length));
      expect(complete.length).toBeLessThan(published.length);

      const resumed = await openRawStream(`${server.url}/api/events`, { 'last-event-id': complete.at(-1) ?? `${server.channel.runId}-0` });
      try {
        await waitFor(() => resumed.frames.length === published.length - complete.length, 'the resumed replay');
        expect(resumed.frames.map((frame) => frame.id)).toEqual(published.slice(complete.length));
      } finally {
        resumed.close();
      }
    } finally {
      fast.close();
    }
  });

  it('does not cut a reading client for one frame larger than the budget', async () => {
    const server = await startChannelServer({ maxBufferedBytes: 16 * 1024 });
    servers.push(server);
    const reading = await openRawStream(`${server.url}/api/events`);
    try {
      const image = 'i'.repeat(2 * 1024 * 1024);
      server.channel.publish('generate', 'partial', { b64: image }, { transientFields: ['b64'] });
      await waitFor(() => reading.frames.length === 1, 'the large frame');
      server.channel.publish('generate', 'done');
      await waitFor(() => reading.frames.length === 2, 'the next frame');
      expect(reading.events()[0].b64).toBe(image);
      expect(server.channel.listenerCount).toBe(1);
    } finally {
      reading.close();
    }
  });

  it('close() ends every connection, even a stalled one, so the server can shut down', async () => {
    const server = await startChannelServer();
    const reading = await openRawStream(`${server.url}/api/events`);
    const slow = await stalledListener(server);
    await waitFor(() => server.channel.listenerCount === 2, 'both listeners');
    for (let n = 0; n < 200; n += 1) server.channel.publish('test', 'big', { payload: 'q'.repeat(64 * 1024) });
    server.channel.close();
    await reading.ended;
    await server.app.close();
    await waitFor(() => server.channel.listenerCount === 0, 'every slot to be freed');
    slow.destroy();
  });
});
