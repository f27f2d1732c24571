import { afterEach, describe, expect, it } from 'vitest';
import { connectEvents, readSse, type EventStreamStatus, type SseMessage } from '../../src/common/events/client.js';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { startChannelServer, waitFor, type TestServer } from './helpers.js';

const bytes = (text: string) => new TextEncoder().encode(text);

async function* chunks(parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? bytes(part) : part;
}

async function collect(source: AsyncIterable<SseMessage>): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of source) messages.push(message);
  return messages;
}

/** Every byte in its own chunk: splits lines, CRLF pairs and multi-byte characters. */
const byteByByte = (text: string) => [...bytes(text)].map((byte) => Uint8Array.of(byte));

describe('readSse', () => {
  it('parses LF, CRLF and lone CR line endings alike', async () => {
    for (const newline of ['\n', '\r\n', '\r']) {
      const text = ['id: 1', 'event: progress', 'data: {"pct":40}', '', 'data: plain', '', ''].join(newline);
      expect(await collect(readSse(chunks([text])))).toEqual([{ id: '1', event: 'progress', data: '{"pct":40}' }, { data: 'plain' }]);
    }
  });

  it('drops a leading BOM, ignores comments and reports them and retry to hooks', async () => {
    const comments: string[] = [];
    const retries: number[] = [];
    const text = '\uFEFF: connected\nretry: 3000\n\n: ping\ndata: a\n\n';
    const messages = await collect(
      readSse(chunks([text]), { onComment: (comment) => comments.push(comment), onRetry: (ms) => retries.push(ms) }),
    );
    expect(messages).toEqual([{ data: 'a' }]);
    expect(comments).toEqual(['connected', 'ping']);
    expect(retries).toEqual([3000]);
  });

  it('handles chunks split anywhere, including inside CRLF, the BOM and multi-byte characters', async () => {
    const text = '\uFEFFid: é-1\r\ndata: {"text":"naïve 🎨"}\r\n\r\ndata: second\r\n\r\n';
    expect(await collect(readSse(chunks(byteByByte(text))))).toEqual([{ id: 'é-1', data: '{"text":"naïve 🎨"}' }, { data: 'second' }]);
  });

  it('joins multi-line data with newlines and dispatches an empty data line', async () => {
    const text = 'data: first line\ndata: second line\n\ndata:\n\ndata : ignored field\n\n';
    expect(await collect(readSse(chunks([text])))).toEqual([{ data: 'first line\nsecond line' }, { data: '' }]);
  });

  it('drops a trailing event that never got its blank line', async () => {
    const text = 'data: complete\n\ndata: incomplete\n';
    expect(await collect(readSse(chunks(['data: complete\n\n', 'data: incompl', 'ete\n'])))).toEqual([{ data: 'complete' }]);
    expect(await collect(readSse(chunks([text])))).toEqual([{ data: 'complete' }]);
  });

  it('reads a web ReadableStream too', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('data: one\n'));
        controller.enqueue(bytes('\ndata: two\n\n'));
        controller.close();
      },
    });
    expect(await collect(readSse(body))).toEqual([{ data: 'one' }, { data: 'two' }]);
  });
});

describe('connectEvents', () => {
  const servers: TestServer[] = [];
  const connections: Array<{ close(): void }> = [];
  afterEach(async () => {
    for (const connection of connections.splice(0)) connection.close();
    for (const server of servers.splice(0)) await server.stop();
  });
  const start = async (...args: Parameters<typeof startChannelServer>) => {
    const server = await startChannelServer(...args);
    servers.push(server);
    return server;
  };

  it('delivers events, reconnects after a server-side kill and resumes with Last-Event-ID: no loss, no duplicates', async () => {
    const server = await start();
    const received: ChannelEvent[] = [];
    const statuses: EventStreamStatus[] = [];
    const connection = connectEvents(`${server.url}/api/events`, {
      onEvent: (event) => received.push(event),
      onStatus: (status) => statuses.push(status),
      reconnectDelayMs: 20,
    });
    connections.push(connection);
    await waitFor(() => server.channel.listenerCount === 1, 'the connection');

    const published: string[] = [];
    const publish = (count: number) => {
      for (let n = 0; n < count; n += 1) published.push(server.channel.publish('test', 'tick', { n: published.length }).id);
    };
    publish(10);
    await waitFor(() => received.length === 10, 'the first events');
    // Mid-stream: frames in flight when the sockets die.
    publish(10);
    server.killConnections();
    publish(10);
    await waitFor(() => statuses.filter((status) => status === 'open').length === 2, 'the reconnect');
    publish(10);
    await waitFor(() => received.length >= published.length, 'every event');
    expect(received.map((event) => event.id)).toEqual(published);
    expect(received.map((event) => event.n)).toEqual(published.map((_, index) => index));
    expect(connection.lastEventId()).toBe(published.at(-1));
    expect(statuses.slice(0, 3)).toEqual(['open', 'reconnecting', 'open']);

    connection.close();
    await connection.closed;
    expect(statuses.at(-1)).toBe('closed');
    await waitFor(() => server.channel.listenerCount === 0, 'the connection to end');
  });

  it('starts from options.lastEventId and passes a replay_gap notice on', async () => {
    const server = await start({ replaySize: 3 });
    const ids = Array.from({ length: 6 }, () => server.channel.publish('test', 'tick').id);
    const resumed: ChannelEvent[] = [];
    const gapped: ChannelEvent[] = [];
    connections.push(connectEvents(`${server.url}/api/events`, { lastEventId: ids[3], onEvent: (event) => resumed.push(event) }));
    connections.push(connectEvents(`${server.url}/api/events`, { lastEventId: ids[0], onEvent: (event) => gapped.push(event) }));
    await waitFor(() => resumed.length === 2 && gapped.length === 4, 'the replays');
    expect(resumed.map((event) => event.id)).toEqual(ids.slice(4));
    expect(gapped[0]).toMatchObject({ topic: 'system', event: 'replay_gap', reason: 'evicted', missed: 2 });
    expect(gapped.slice(1).map((event) => event.id)).toEqual(ids.slice(3));
  });

  it('stops on a refusal other than 503', async () => {
    const server = await start();
    const statuses: EventStreamStatus[] = [];
    const errors: unknown[] = [];
    const connection = connectEvents(`${server.url}/api/nothing-here`, {
      onEvent: () => {},
      onStatus: (status) => statuses.push(status),
      onError: (error) => errors.push(error),
      reconnectDelayMs: 5,
    });
    await connection.closed;
    expect(statuses).toEqual(['closed']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 404 });
  });

  it('retries a 503 at capacity with backoff and gets in once a slot frees', async () => {
    const server = await start({ maxListeners: 1 });
    const holder = new AbortController();
    const held = await fetch(`${server.url}/api/events`, { signal: holder.signal });
    expect(held.status).toBe(200);
    const errors: unknown[] = [];
    const received: ChannelEvent[] = [];
    const connection = connectEvents(`${server.url}/api/events`, {
      onEvent: (event) => received.push(event),
      onError: (error) => errors.push(error),
      reconnectDelayMs: 10,
      maxReconnectDelayMs: 40,
    });
    connections.push(connection);
    await waitFor(() => errors.length >= 2, 'two refused attempts');
    expect(errors.every((error) => (error as { status?: number }).status === 503)).toBe(true);
    holder.abort();
    await waitFor(() => server.channel.listenerCount === 1 && errors.length > 0, 'the holder to leave');
    await waitFor(() => {
      if (server.channel.listenerCount === 1) server.channel.publish('test', 'hello');
      return received.length > 0;
    }, 'the client to get in');
    expect(received[0]).toMatchObject({ topic: 'test', event: 'hello' });
  });

  it('stops when its signal aborts, also while waiting to reconnect', async () => {
    const server = await start();
    const controller = new AbortController();
    const statuses: EventStreamStatus[] = [];
    const connection = connectEvents(`${server.url}/api/events`, {
      onEvent: () => {},
      onStatus: (status) => statuses.push(status),
      signal: controller.signal,
      reconnectDelayMs: 60_000,
    });
    await waitFor(() => statuses.includes('open'), 'open');
    server.killConnections();
    await waitFor(() => statuses.includes('reconnecting'), 'the reconnect wait');
    controller.abort();
    await connection.closed;
    expect(statuses).toEqual(['open', 'reconnecting', 'closed']);
  });

  it('reconnects when the stream goes quiet beyond idleTimeoutMs', async () => {
    // No heartbeat within the idle timeout: the client must give up on the silent connection and come back.
    const server = await start({ heartbeatMs: 60_000 });
    const statuses: EventStreamStatus[] = [];
    const connection = connectEvents(`${server.url}/api/events`, {
      onEvent: () => {},
      onStatus: (status) => statuses.push(status),
      idleTimeoutMs: 50,
      reconnectDelayMs: 10,
    });
    connections.push(connection);
    await waitFor(() => statuses.filter((status) => status === 'open').length >= 2, 'a reconnect after silence');
    expect(statuses.slice(0, 3)).toEqual(['open', 'reconnecting', 'open']);
  });
});
