import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { openRawStream, publishOverHttp, startChannelServer, waitFor, type RawStream, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
const streams: RawStream[] = [];
const start = async (...args: Parameters<typeof startChannelServer>) => {
  const server = await startChannelServer(...args);
  servers.push(server);
  return server;
};
const open = async (...args: Parameters<typeof openRawStream>) => {
  const stream = await openRawStream(...args);
  streams.push(stream);
  return stream;
};

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  for (const server of servers.splice(0)) await server.stop();
});

const seqOf = (id: unknown) => Number(String(id).split('-')[1]);
const idsOf = (stream: RawStream) => stream.events().map((event) => event.id);

async function publishMany(server: TestServer, count: number, event = 'tick'): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) ids.push(await publishOverHttp(server, 'test', event, { n }));
  return ids;
}

describe('GET /api/events', () => {
  it('opens with the SSE headers and a comment, then sends data-only frames in order, each with its id', async () => {
    const server = await start();
    const stream = await open(`${server.url}/api/events`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('cache-control')).toBe('no-cache');
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.headers.get('connection')).toBe('keep-alive');
    await waitFor(() => stream.comments.length > 0, 'the opening comment');
    expect(stream.comments[0]).toBe('connected');

    const ids = await publishMany(server, 50);
    await waitFor(() => stream.frames.length === 50, '50 frames');
    for (const [index, frame] of stream.frames.entries()) {
      expect(frame.event).toBeUndefined();
      const data = JSON.parse(frame.data as string) as Record<string, unknown>;
      expect(Object.keys(data)).toEqual(['topic', 'event', 'n', 'id']);
      expect(data).toEqual({ topic: 'test', event: 'tick', n: index, id: ids[index] });
      expect(frame.id).toBe(ids[index]);
    }
    expect(ids.every((id) => /^[0-9a-f]{10}-\d+$/.test(id))).toBe(true);
    expect(ids.map(seqOf)).toEqual(ids.map((_, index) => index + 1));
    expect(server.channel.listenerCount).toBe(1);
  });

  it('is read in order by an independent EventSource client', async () => {
    const server = await start();
    const received: Array<{ type: string; lastEventId: string; data: Record<string, unknown> }> = [];
    const source = new EventSource(`${server.url}/api/events`);
    source.onmessage = (message) => received.push({ type: message.type, lastEventId: message.lastEventId, data: JSON.parse(message.data) });
    try {
      await waitFor(() => server.channel.listenerCount === 1, 'the EventSource to connect');
      const ids = await publishMany(server, 20);
      await waitFor(() => received.length === 20, '20 messages');
      expect(received.map((message) => message.type)).toEqual(ids.map(() => 'message'));
      expect(received.map((message) => message.lastEventId)).toEqual(ids);
      expect(received.map((message) => message.data.n)).toEqual(ids.map((_, index) => index));
    } finally {
      source.close();
    }
  });

  it('resumes after a Last-Event-ID header or a ?lastEventId= query (the header wins), then goes live', async () => {
    const server = await start();
    const ids = await publishMany(server, 10);

    const byHeader = await open(`${server.url}/api/events`, { 'last-event-id': ids[3] });
    const byQuery = await open(`${server.url}/api/events?lastEventId=${encodeURIComponent(ids[6])}`);
    const both = await open(`${server.url}/api/events?lastEventId=${encodeURIComponent(ids[1])}`, { 'last-event-id': ids[8] });
    const atHead = await open(`${server.url}/api/events`, { 'last-event-id': ids[9] });
    const live = await publishMany(server, 3);

    await waitFor(() => atHead.frames.length === 3, 'live events after the newest cursor');
    await waitFor(() => byHeader.frames.length === 6 + 3, 'header resume');
    await waitFor(() => byQuery.frames.length === 3 + 3, 'query resume');
    await waitFor(() => both.frames.length === 1 + 3, 'header-wins resume');
    expect(idsOf(byHeader)).toEqual([...ids.slice(4), ...live]);
    expect(idsOf(byQuery)).toEqual([...ids.slice(7), ...live]);
    expect(idsOf(both)).toEqual([ids[9], ...live]);
    expect(idsOf(atHead)).toEqual(live);
    expect(byHeader.frames.map((frame) => frame.id)).toEqual(idsOf(byHeader));
  });

  it('answers an evicted cursor with replay_gap, then every event still held, then live events, without duplicates', async () => {
    const server = await start({ replaySize: 5 });
    const ids = await publishMany(server, 12);
    const runId = ids[0].split('-')[0];

    const evicted = await open(`${server.url}/api/events`, { 'last-event-id': ids[2] });
    const justHeld = await open(`${server.url}/api/events`, { 'last-event-id': ids[6] });
    const live = await publishMany(server, 2);
    await waitFor(() => evicted.frames.length === 1 + 5 + 2, 'gap, buffer and live events');
    await waitFor(() => justHeld.frames.length === 5 + 2, 'the cursor just before the buffer');

    const [gap, ...rest] = evicted.events();
    expect(gap).toEqual({
      topic: 'system',
      event: 'replay_gap',
      reason: 'evicted',
      requestedId: ids[2],
      oldestId: ids[7],
      missed: 4,
      id: `${runId}-7-gap`,
    });
    expect(evicted.frames[0].id).toBe(gap.id);
    expect(rest.map((event) => event.id)).toEqual([...ids.slice(7), ...live]);
    // The cursor naming the position just before the oldest held event is honoured: no gap.
    expect(idsOf(justHeld)).toEqual([...ids.slice(7), ...live]);

    // The notice's own id names its position (just before ids[7]); two more events have been evicted since.
    const fromGap = await open(`${server.url}/api/events`, { 'last-event-id': String(gap.id) });
    await waitFor(() => fromGap.frames.length === 1 + 5, 'replay from the gap id');
    const [secondGap, ...held] = fromGap.events();
    expect(secondGap).toMatchObject({ reason: 'evicted', requestedId: gap.id, oldestId: ids[9], missed: 2, id: `${runId}-9-gap` });
    expect(held.map((event) => event.id)).toEqual([...ids.slice(9), ...live]);
  });

  it('honours the id of a replay_gap notice as a cursor', async () => {
    const server = await start({ replaySize: 2 });
    const ids = await publishMany(server, 4);
    const evicted = await open(`${server.url}/api/events`, { 'last-event-id': ids[0] });
    await waitFor(() => evicted.frames.length === 3, 'gap and buffer');
    const gapId = evicted.frames[0].id as string;
    // A client that saw only the notice resumes from it: the held events, no second gap.
    const resumed = await open(`${server.url}/api/events`, { 'last-event-id': gapId });
    const live = await publishMany(server, 1);
    await waitFor(() => resumed.frames.length === 3, 'the held events and the live one');
    expect(idsOf(resumed)).toEqual([ids[2], ids[3], ...live]);
  });

  it('treats a cursor from an earlier run, a malformed one and a future one as gaps', async () => {
    const earlier = await start();
    const earlierIds = await publishMany(earlier, 3);
    await earlier.stop();
    servers.splice(servers.indexOf(earlier), 1);

    const server = await start();
    const ids = await publishMany(server, 4);
    const runId = ids[0].split('-')[0];
    const cursors = { unknown_run: earlierIds[2], invalid_cursor: 'not-an-id', future: `${runId}-99` };
    const opened = Object.fromEntries(
      await Promise.all(
        Object.entries(cursors).map(
          async ([name, cursor]) => [name, await open(`${server.url}/api/events`, { 'last-event-id': cursor })] as const,
        ),
      ),
    );
    const live = await publishMany(server, 2);
    for (const [name, cursor] of Object.entries(cursors)) {
      const stream = opened[name];
      await waitFor(() => stream.frames.length === 1 + 4 + 2, `${name}: gap, buffer, live`);
      const [gap, ...rest] = stream.events();
      expect(gap).toEqual({
        topic: 'system',
        event: 'replay_gap',
        reason: name === 'future' ? 'invalid_cursor' : name,
        requestedId: cursor,
        oldestId: ids[0],
        id: `${runId}-0-gap`,
      });
      expect(rest.map((event) => event.id)).toEqual([...ids, ...live]);
    }
  });

  it('replays nothing for a fresh connection and a gap with oldestId null when the channel holds nothing', async () => {
    const server = await start();
    const stream = await open(`${server.url}/api/events`, { 'last-event-id': 'abc-1' });
    await waitFor(() => stream.frames.length === 1, 'the gap notice');
    expect(stream.events()[0]).toMatchObject({
      event: 'replay_gap',
      reason: 'unknown_run',
      oldestId: null,
      id: `${server.channel.runId}-0-gap`,
    });
  });

  it('sends a heartbeat comment every heartbeatMs', async () => {
    const server = await start({ heartbeatMs: 20 });
    const stream = await open(`${server.url}/api/events`);
    await waitFor(() => stream.comments.filter((comment) => comment === 'ping').length >= 3, 'three pings');
    expect(stream.frames).toHaveLength(0);
  });

  it('recovers through an EventSource reconnect after the server kills the connection, without loss or duplicates', async () => {
    const server = await start();
    const received: string[] = [];
    const source = new EventSource(`${server.url}/api/events`);
    source.onmessage = (message) => received.push(message.lastEventId);
    try {
      await waitFor(() => server.channel.listenerCount === 1, 'the first connection');
      const before = await publishMany(server, 5);
      await waitFor(() => received.length === 5, 'the first events');
      server.killConnections();
      await waitFor(() => server.channel.listenerCount === 0, 'the killed connection to leave');
      // Published while the client is away; EventSource resumes with Last-Event-ID.
      const during = await publishMany(server, 5);
      await waitFor(() => server.channel.listenerCount === 1, 'the reconnect');
      const after = await publishMany(server, 5);
      await waitFor(() => received.length >= 15, 'all events');
      expect(received).toEqual([...before, ...during, ...after]);
    } finally {
      source.close();
    }
  });
});

describe('replay memory', () => {
  it('keeps image-bearing events small in replay: transient and oversized fields are omitted and named', async () => {
    const server = await start();
    const seen: ChannelEvent[] = [];
    server.channel.subscribe((event) => seen.push(event));
    const liveStream = await open(`${server.url}/api/events`);
    const b64 = 'A'.repeat(512 * 1024);
    const log = 'L'.repeat(10_000);
    const first = await publishOverHttp(server, 'generate', 'partial', { requestId: 'r1', b64, caption: 'step 1' }, ['b64']);
    await publishOverHttp(server, 'generate', 'phase', { requestId: 'r1', log, phase: 'render' });
    await publishOverHttp(server, 'generate', 'phase', { requestId: 'r1', phase: 'small', note: 'n'.repeat(100) });
    await waitFor(() => liveStream.frames.length === 3, 'the live frames');

    // Live listeners get everything.
    expect(liveStream.events()[0]).toEqual({ topic: 'generate', event: 'partial', requestId: 'r1', b64, caption: 'step 1', id: first });
    expect(liveStream.events()[1].log).toBe(log);
    expect(seen[0].b64).toBe(b64);

    // The replay copy drops them and says so.
    const replayed = await open(`${server.url}/api/events`, { 'last-event-id': `${server.channel.runId}-0` });
    await waitFor(() => replayed.frames.length === 3, 'the replayed frames');
    const [partial, phase, small] = replayed.events();
    expect(partial).toEqual({ topic: 'generate', event: 'partial', requestId: 'r1', caption: 'step 1', omitted: ['b64'], id: first });
    expect(phase).toMatchObject({ phase: 'render', omitted: ['log'] });
    expect(phase.log).toBeUndefined();
    expect(small).toEqual(liveStream.events()[2]);
  });

  it('bounds the replay of many image events to their small fields', async () => {
    const server = await start();
    const b64 = 'B'.repeat(256 * 1024);
    for (let n = 0; n < 200; n += 1)
      server.channel.publish('generate', 'partial', { requestId: `r${n}`, b64 }, { transientFields: ['b64'] });
    const replayed = await open(`${server.url}/api/events`, { 'last-event-id': `${server.channel.runId}-0` });
    await waitFor(() => replayed.frames.length === 200, 'the replay');
    const bytes = replayed.frames.reduce((sum, frame) => sum + (frame.data?.length ?? 0), 0);
    // 200 events carried 50 MiB live; their replay copies are about 100 bytes each.
    expect(bytes).toBeLessThan(200 * 200);
    expect(replayed.events().every((event) => event.b64 === undefined && String(event.omitted) === 'b64')).toBe(true);
  });
});

describe('internal listeners', () => {
  it('get every later event in order, full; unsubscribe stops them; a throwing listener harms no one', async () => {
    const errors: unknown[] = [];
    const server = await start({ onListenerError: (error) => errors.push(error) });
    server.channel.publish('test', 'before');
    const first: string[] = [];
    const second: string[] = [];
    const unsubscribe = server.channel.subscribe((event) => first.push(event.event));
    server.channel.subscribe(() => {
      throw new Error('listener bug');
    });
    server.channel.subscribe((event) => {
      second.push(event.event);
      // Re-entrant publish: queued, so every listener still sees publish order.
      if (event.event === 'a') server.channel.publish('test', 'b');
    });
    const returned = server.channel.publish('test', 'a', { big: 'x'.repeat(10_000) }, { transientFields: ['big'] });
    expect(returned).toMatchObject({ topic: 'test', event: 'a', id: `${server.channel.runId}-2` });
    expect(returned.big).toHaveLength(10_000);
    expect(Object.isFrozen(returned)).toBe(true);
    server.channel.publish('test', 'c');
    expect(first).toEqual(['a', 'b', 'c']);
    expect(second).toEqual(['a', 'b', 'c']);
    expect(errors).toHaveLength(3);
    unsubscribe();
    server.channel.publish('test', 'd');
    expect(first).toEqual(['a', 'b', 'c']);
    expect(second).toEqual(['a', 'b', 'c', 'd']);
  });

  it('cannot let fields override topic, event or id, and publishes nothing for an unserializable event', async () => {
    const server = await start();
    const event = server.channel.publish('real', 'kind', { topic: 'fake', event: 'fake', id: 'fake', extra: 1 });
    expect(event).toEqual({ topic: 'real', event: 'kind', extra: 1, id: `${server.channel.runId}-1` });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => server.channel.publish('real', 'kind', { circular })).toThrow();
    expect(server.channel.publish('real', 'next').id).toBe(`${server.channel.runId}-2`);
  });
});
