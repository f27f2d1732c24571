import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/studio/upstream/index.js';
import { UpstreamSocket } from '../../src/studio/upstream/websocket.js';

// The upstream WebSocket transport's rules, against real loopback servers:
// the handshake's budget, the message size limit, typed failures, reconnect
// with back-off after a drop, and no reconnect after close.

const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

async function wsServer(): Promise<{ url: string; server: WebSocketServer; accepted: () => number }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  let accepted = 0;
  server.on('connection', () => (accepted += 1));
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, server, accepted: () => accepted };
}

const socketOf = (url: string, extra: Partial<ConstructorParameters<typeof UpstreamSocket>[0]> = {}) => {
  const messages: string[] = [];
  const states: { state: string; error?: UpstreamError }[] = [];
  const socket = new UpstreamSocket({
    lane: 'flow',
    url,
    connectTimeoutMs: 500,
    maxMessageBytes: 1024,
    backoff: { initialMs: 20, maxMs: 80 },
    onMessage: (message) => messages.push('text' in message ? message.text : `binary:${message.binary.length}`),
    onState: (state, error) => states.push({ state, error }),
    ...extra,
  });
  cleanup.push(() => socket.close());
  return { socket, messages, states };
};

async function until(probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('UpstreamSocket', () => {
  it('delivers text and binary frames, and reconnects with back-off after a drop', async () => {
    const { url, server, accepted } = await wsServer();
    server.on('connection', (client) => {
      client.send('hello');
      client.send(Buffer.alloc(10), { binary: true });
    });
    const { socket, messages, states } = socketOf(url);
    await socket.open();
    await until(() => messages.length === 2);
    expect(messages).toEqual(['hello', 'binary:10']);
    for (const client of server.clients) client.terminate();
    await until(() => accepted() === 2 && socket.connected);
    expect(states.map((entry) => entry.state)).toEqual(['open', 'down', 'open']);
    expect(states[1].error).toBeInstanceOf(UpstreamError);
    expect(states[1].error?.failure).toBe('network');
    socket.close();
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(accepted()).toBe(2);
  });

  it('refuses a message over its limit as a protocol failure', async () => {
    const { url, server } = await wsServer();
    server.on('connection', (client) => client.send('x'.repeat(4096)));
    const { socket, states } = socketOf(url);
    await socket.open();
    await until(() => states.some((entry) => entry.state === 'down'));
    const down = states.find((entry) => entry.state === 'down');
    expect(down?.error).toMatchObject({ failure: 'protocol', lane: 'flow' });
    expect(down?.error?.message).toContain('over 1024 bytes');
  });

  it('times out a handshake that never completes, and says a refused connection is a network failure', async () => {
    const held = new Set<Socket>();
    const silent: Server = createServer((connection) => held.add(connection));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          for (const connection of held) connection.destroy();
          silent.close(() => resolve());
        }),
    );
    const port = (silent.address() as AddressInfo).port;
    const slow = socketOf(`ws://127.0.0.1:${port}/ws`, { connectTimeoutMs: 200 });
    const started = Date.now();
    const failure = await slow.socket.open().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ failure: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3_000);
    slow.socket.close();

    const refused = socketOf('ws://127.0.0.1:1/ws');
    await expect(refused.socket.open()).rejects.toMatchObject({ failure: 'network' });
  });

  it('keeps its back-off while callers keep asking for the connection', async () => {
    let connections = 0;
    const held = new Set<Socket>();
    const refusing: Server = createServer((connection) => {
      connections += 1;
      held.add(connection);
      connection.destroy();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => refusing.close(() => resolve())));
    const { socket } = socketOf(`ws://127.0.0.1:${(refusing.address() as AddressInfo).port}/ws`);
    const end = Date.now() + 500;
    while (Date.now() < end) {
      await socket.open().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Back-off 20 ms doubling to 80 ms: about 8 attempts in half a second, not one per call.
    expect(connections).toBeGreaterThan(2);
    expect(connections).toBeLessThan(15);
    socket.close();
  });
});
