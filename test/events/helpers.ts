import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../../src/common/http-app.js';
import { EventChannel } from '../../src/common/events/channel.js';
import type { EventChannelOptions } from '../../src/common/events/types.js';

export interface TestServer {
  app: FastifyInstance;
  channel: EventChannel;
  url: string;
  port: number;
  /**
   * Destroys the sockets serving event streams (a server-side connection kill).
   * Idle keep-alive sockets of the test's own fetch calls are left alone: killing
   * one races the next publish, which would fail with "other side closed".
   */
  killConnections(): void;
  stop(): Promise<void>;
}

/**
 * A real server: `/api/events` mounted as the servers do, plus a test
 * publisher `POST /test/publish` `{ topic, event, fields?, transientFields? }`.
 */
export async function startChannelServer(
  options: EventChannelOptions = {},
  extraRoutes?: (app: FastifyInstance, channel: EventChannel) => void,
): Promise<TestServer> {
  const channel = new EventChannel(options);
  const app = createHttpApp({ bodyLimit: 1e6, security: { allowedOrigins: [] } });
  app.get('/api/events', (request, reply) => channel.serve(request, reply));
  app.post('/test/publish', async (request) => {
    const body = request.body as { topic: string; event: string; fields?: Record<string, unknown>; transientFields?: string[] };
    return { id: channel.publish(body.topic, body.event, body.fields, { transientFields: body.transientFields }).id };
  });
  extraRoutes?.(app, channel);
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const streamSockets = new Set<Socket>();
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/test/')) {
      const socket = request.raw.socket as Socket;
      streamSockets.add(socket);
      socket.once('close', () => streamSockets.delete(socket));
    }
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    channel,
    port,
    url: `http://127.0.0.1:${port}`,
    killConnections: () => {
      for (const socket of streamSockets) socket.destroy();
    },
    async stop() {
      channel.close();
      const closing = app.close();
      // fetch (undici) may keep a spare connection that never carries a request; Node's close would wait for it.
      for (const socket of sockets) socket.destroy();
      await closing;
    },
  };
}

export async function publishOverHttp(
  server: TestServer,
  topic: string,
  event: string,
  fields?: Record<string, unknown>,
  transientFields?: string[],
): Promise<string> {
  const response = await fetch(`${server.url}/test/publish`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ topic, event, fields, transientFields }),
  });
  if (response.status !== 200) throw new Error(`publish answered ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/** Polls until the condition holds; the bound only stops a broken test, it is not an assertion on time. */
export async function waitFor(condition: () => boolean, what: string, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface RawFrame {
  id?: string;
  event?: string;
  data?: string;
}

export interface RawStream {
  status: number;
  headers: Headers;
  /** Dispatched frames (a blank line after at least one field). */
  frames: RawFrame[];
  /** Comment lines, without the leading colon. */
  comments: string[];
  /** Settles when the body ends (or fails). */
  ended: Promise<void>;
  /** The `data:` JSON of every frame. */
  events(): Array<Record<string, unknown>>;
  close(): void;
}

/**
 * A deliberately simple SSE reader written for the tests, independent of the
 * product's client: fetch, split lines on CR/LF/CRLF, collect fields until a
 * blank line.
 */
export async function openRawStream(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<RawStream> {
  const controller = new AbortController();
  const response = await fetch(url, { method, headers: { accept: 'text/event-stream', ...headers }, body, signal: controller.signal });
  const frames: RawFrame[] = [];
  const comments: string[] = [];
  const consume = async () => {
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let frame: RawFrame = {};
    let hasField = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (hasField) frames.push(frame);
          frame = {};
          hasField = false;
        } else if (line.startsWith(':')) {
          comments.push(line.slice(1).trim());
        } else {
          const colon = line.indexOf(':');
          const name = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (name === 'id' || name === 'event') frame[name] = value;
          if (name === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          // `retry:` alone is not a frame.
          if (name === 'id' || name === 'event' || name === 'data') hasField = true;
        }
      }
    }
  };
  const ended = consume().catch(() => {});
  return {
    status: response.status,
    headers: response.headers,
    frames,
    comments,
    ended,
    events: () =>
      frames.filter((frame) => frame.data !== undefined).map((frame) => JSON.parse(frame.data as string) as Record<string, unknown>),
    close: () => controller.abort(),
  };
}
