import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { streamRequestEvents } from '../../src/common/events/request-stream.js';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { createHttpApp } from '../../src/common/http-app.js';
import { CommittedEventBus } from '../../src/studio/event-bus.js';
import { openPgDatabase } from '../../src/studio/store/pg/database.js';
import { PgEventLog } from '../../src/studio/store/pg/events.js';
import { openRawStream, waitFor, type RawStream } from '../events/helpers.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { describeEventBusContract } from './contracts/event-bus.contract.js';
import { describeEventLogContract } from './contracts/event-log.contract.js';

// The event log in PostgreSQL: the port contracts, then two studios (two pools, two buses) on one
// database, as two instances of a team run. One server for the file, a database per test.

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openLog(url: string): Promise<PgEventLog> {
  const db = openPgDatabase(url, { max: 4 });
  cleanups.push(() => db.close());
  const log = await PgEventLog.open(db);
  cleanups.push(() => log.close());
  return log;
}

/** A studio's bus over the database at `url` (a pool and a LISTEN connection of its own). */
async function openBus(url: string, replaySize = 1000): Promise<CommittedEventBus> {
  const bus = new CommittedEventBus(await openLog(url), { replaySize, onListenerError: () => {} });
  cleanups.push(() => bus.close());
  await bus.ready;
  return bus;
}

function watch(bus: CommittedEventBus): ChannelEvent[] {
  const seen: ChannelEvent[] = [];
  bus.subscribe((event) => seen.push(event));
  return seen;
}

/** Ends the LISTEN connections on the database at `url` (as a network fault would); answers how many. */
async function cutListeners(url: string): Promise<number> {
  const admin = openPgDatabase(url, { max: 1 });
  try {
    const [{ count }] = await admin.query<{ count: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN studio_events'",
    );
    return count;
  } finally {
    await admin.close();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const label = (event: ChannelEvent) => `${String(event.from)}${String(event.n)}`;

describeEventLogContract('PostgreSQL', async () => {
  const url = await server.createDatabase();
  let db = openPgDatabase(url, { max: 4 });
  let log = await PgEventLog.open(db);
  return {
    log,
    async reopen() {
      await log.close();
      await db.close();
      db = openPgDatabase(url, { max: 4 });
      log = await PgEventLog.open(db);
      return log;
    },
    async close() {
      await log.close();
      await db.close();
    },
  };
});

describeEventBusContract('the studio event bus over the PostgreSQL log', async (options) =>
  openBus(await server.createDatabase(), options.replaySize),
);

describe('the PostgreSQL event log', () => {
  it('gives positions in commit order, one statement per turn, dense across two studios appending at once', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openLog(url), await openLog(url)];
    const appended = await Promise.all(
      Array.from({ length: 60 }, (_, n) => (n % 2 === 0 ? a : b).append({ data: JSON.stringify({ topic: 'test', event: 'tick', n }) })),
    );
    const page = await a.after(0, 100);
    expect(page.events.map((event) => event.seq)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    expect([...appended].sort((x, y) => x - y)).toEqual(page.events.map((event) => event.seq));
    // Each studio's own appends keep their order.
    const byStudio = (parity: number) => appended.filter((_, n) => n % 2 === parity);
    for (const parity of [0, 1]) expect(byStudio(parity)).toEqual([...byStudio(parity)].sort((x, y) => x - y));
  });

  it('follows every studio’s events from where it started, in position order, after the appends settle', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openLog(url), await openLog(url)];
    await a.append({ data: '{"topic":"test","event":"old"}' });
    const followed: number[] = [];
    const settledBefore: boolean[] = [];
    const mine = new Set<number>();
    const following = a.follow(
      (events) => {
        for (const event of events) {
          followed.push(event.seq);
          if (JSON.parse(event.data).from === 'a') settledBefore.push(mine.has(event.seq));
        }
      },
      () => {},
    );
    expect(await following.started).toBe(1);
    const appends: Array<Promise<number>> = [];
    for (let round = 0; round < 5; round += 1) {
      for (let n = 0; n < 4; n += 1) {
        appends.push(a.append({ data: JSON.stringify({ from: 'a', n }) }).then((seq) => (mine.add(seq), seq)));
        void b.append({ data: JSON.stringify({ from: 'b', n }) });
      }
      await turn();
    }
    await Promise.all(appends);
    await waitFor(() => followed.length === 40, 'every event');
    expect(followed).toEqual(Array.from({ length: 40 }, (_, index) => index + 2));
    expect(settledBefore).toEqual(Array.from({ length: 20 }, () => true));
  });
});

describe('the PostgreSQL event log, followed', () => {
  it('sends an event appended in a transaction once it commits, and nothing of one rolled back', async () => {
    const url = await server.createDatabase();
    const db = openPgDatabase(url, { max: 4 });
    cleanups.push(() => db.close());
    const log = await PgEventLog.open(db);
    cleanups.push(() => log.close());
    const followed: string[] = [];
    await log.follow(
      (events) => followed.push(...events.map((event) => event.data)),
      () => {},
    ).started;
    await expect(
      db.transaction(async (client) => {
        await log.appendInTransaction(client, { data: '{"n":"rolled back"}' });
        throw new Error('the row change failed');
      }),
    ).rejects.toThrow('the row change failed');
    const seq = await db.transaction((client) => log.appendInTransaction(client, { data: '{"n":"committed"}' }));
    await waitFor(() => followed.length === 1, 'the committed event');
    expect(followed).toEqual(['{"n":"committed"}']);
    expect(seq).toBe(1);
    expect(await log.append({ data: '{"n":"next"}' })).toBe(2);
  });

  it('reads what was committed while its LISTEN connection was away, and counts what a trim took meanwhile', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openLog(url), await openLog(url)];
    const followed: number[] = [];
    let lost = 0;
    await a.follow(
      (events) => followed.push(...events.map((event) => event.seq)),
      (count) => (lost += count),
    ).started;
    expect(await cutListeners(url)).toBe(1);
    await Promise.all(Array.from({ length: 10 }, (_, n) => b.append({ data: JSON.stringify({ n }) })));
    await b.trim(2);
    await waitFor(() => followed.at(-1) === 10, 'the newest event');
    // Every position exactly once: sent, or counted as trimmed before it could be read.
    expect(lost + followed.length).toBe(10);
    expect(followed).toEqual(Array.from({ length: followed.length }, (_, index) => 10 - followed.length + 1 + index));
  });
});

describe('two studios on one PostgreSQL', () => {
  it('send every event to their subscribers with the same ids in the same order; a cursor from one replays exactly the rest on the other', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openBus(url), await openBus(url)];
    const [seenA, seenB] = [watch(a), watch(b)];
    for (let round = 0; round < 10; round += 1) {
      for (let n = 0; n < 5; n += 1) {
        a.publish('test', 'tick', { from: 'a', n: round * 5 + n, b64: 'big' }, { transientFields: ['b64'] });
        b.publish('test', 'tick', { from: 'b', n: round * 5 + n });
      }
      await turn();
    }
    await waitFor(() => seenA.length === 100 && seenB.length === 100, 'every event on both');
    expect(seenB.map((event) => event.id)).toEqual(seenA.map((event) => event.id));
    expect(seenB.map(label)).toEqual(seenA.map(label));
    expect(new Set(seenA.map((event) => event.id)).size).toBe(100);
    for (const from of ['a', 'b'])
      expect(seenA.filter((event) => event.from === from).map((event) => event.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    // A studio's own events go live whole; another's as replayed (its transient fields stay with it).
    expect(seenA.find((event) => event.from === 'a')).toMatchObject({ b64: 'big' });
    expect(seenB.find((event) => event.from === 'a')).toMatchObject({ omitted: ['b64'] });
    expect(seenB.find((event) => event.from === 'a')).not.toHaveProperty('b64');

    // A reader on A took 37 events; it resumes on B with the last id.
    const rest = await b.replay(seenA[36].id);
    expect(rest.map((event) => event.id)).toEqual(seenA.slice(37).map((event) => event.id));
    expect(rest.map(label)).toEqual(seenA.slice(37).map(label));
  });

  it('answer a cursor older than the retention, another log’s or a malformed one with the same replay_gap on both', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openBus(url, 5), await openBus(url, 5)];
    const [seen, seenB] = [watch(a), watch(b)];
    // Each sent live on both before the next (a retention of 5 leaves a follower no slack).
    for (let n = 0; n < 8; n += 1) {
      (n % 2 === 0 ? a : b).publish('test', 'tick', { n });
      await waitFor(() => seen.length === n + 1 && seenB.length === n + 1, `event ${n}`);
    }
    const foreign = seen[0].id.replace(/^[0-9a-z]+-/, 'zz00000000-');
    for (const cursor of [seen[1].id, foreign, 'not a cursor', `${seen[7].id}9`]) {
      const [onA, onB] = [await a.replay(cursor), await b.replay(cursor)];
      expect(onB).toEqual(onA);
      expect(onA[0]).toMatchObject({ topic: 'system', event: 'replay_gap', requestedId: cursor, oldestId: seen[3].id });
      expect(onA.slice(1).map((event) => event.id)).toEqual(seen.slice(3).map((event) => event.id));
    }
    expect((await a.replay(seen[1].id))[0]).toMatchObject({ reason: 'evicted', missed: 1, id: `${seen[2].id}-gap` });
    expect((await b.replay(foreign))[0]).toMatchObject({ reason: 'unknown_run' });
    // The gap notice's id resumes on either with exactly what it announced.
    const gapId = (await a.replay(seen[1].id))[0].id;
    expect((await b.replay(gapId)).map((event) => event.id)).toEqual(seen.slice(3).map((event) => event.id));
  });
});

describe('two studios serving /api/events over one PostgreSQL', () => {
  async function serve(bus: CommittedEventBus): Promise<string> {
    const app: FastifyInstance = createHttpApp({ bodyLimit: 1e6, security: { allowedOrigins: [] } });
    app.get('/api/events', (request, reply) => bus.channel.serve(request, reply));
    app.post('/follow/:requestId', (request, reply) =>
      streamRequestEvents(reply, bus.channel, { requestId: (request.params as { requestId: string }).requestId }),
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => app.close());
    const address = app.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async function stream(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawStream> {
    const opened = await openRawStream(url, headers, method);
    cleanups.push(() => opened.close());
    return opened;
  }

  it('resumes on B a connection cut on A with exactly the events after its last id, then live, none twice', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openBus(url), await openBus(url)];
    const [urlA, urlB] = [await serve(a), await serve(b)];
    const seen = watch(b);
    const onA = await stream(`${urlA}/api/events`);
    for (let n = 0; n < 20; n += 1) (n % 3 === 0 ? b : a).publish('test', 'tick', { n });
    await waitFor(() => onA.frames.length === 20, 'the events on A');
    const taken = onA.frames.slice(0, 12);
    onA.close();

    const onB = await stream(`${urlB}/api/events`, { 'last-event-id': taken[11].id ?? '' });
    for (let n = 20; n < 25; n += 1) (n % 2 === 0 ? a : b).publish('test', 'tick', { n });
    await waitFor(() => seen.length === 25, 'every event on B');
    await waitFor(() => onB.frames.length === 13, 'the replay and the live events on B');
    expect(onB.frames.map((frame) => frame.id)).toEqual(seen.slice(12).map((event) => event.id));
    expect(onB.events().map((event) => event.n)).toEqual(seen.slice(12).map((event) => event.n));
    expect(onA.frames.map((frame) => frame.id)).toEqual(seen.slice(0, 20).map((event) => event.id));
  });

  it('sends a connection opened on a studio whose tail is behind its replay, then only what came after it', async () => {
    const url = await server.createDatabase();
    const a = await openBus(url);
    const seenA = watch(a);
    a.publish('test', 'tick', { n: 0 });
    await waitFor(() => seenA.length === 1, 'the first event');
    const b = await openBus(url);
    const urlB = await serve(b);
    const seenB = watch(b);
    // B's tail falls behind (its LISTEN connection is cut; it reconnects a moment later and reads what it missed).
    expect(await cutListeners(url)).toBe(2);
    for (let n = 1; n <= 5; n += 1) a.publish('test', 'tick', { n });
    await waitFor(() => seenA.length === 6, 'the events on A');
    const onB = await stream(`${urlB}/api/events`, { 'last-event-id': seenA[0].id });
    await waitFor(() => seenB.length === 5, 'B catching up');
    a.publish('test', 'tick', { n: 6 });
    await waitFor(() => seenB.length === 6 && onB.frames.length >= 6, 'the live event on B');
    expect(onB.frames.map((frame) => frame.id)).toEqual(seenA.slice(1).map((event) => event.id));
    expect(onB.events().map((event) => event.n)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('streams a request’s events on B while A runs it, to its terminal event', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await openBus(url), await openBus(url)];
    const urlB = await serve(b);
    const followed = await stream(`${urlB}/follow/r1`, {}, 'POST');
    await waitFor(() => b.hasAudience, 'the stream on B');
    a.publish('generation', 'phase', { requestId: 'r1', phase: 'running' });
    a.publish('generation', 'phase', { requestId: 'r2', phase: 'running' });
    a.publish('generation', 'done', { requestId: 'r1' });
    await followed.ended;
    expect(followed.events().map((event) => event.event)).toEqual(['phase', 'done']);
    const held = (await a.replay('not a cursor')).slice(1);
    expect(followed.frames.map((frame) => frame.id)).toEqual(held.filter((event) => event.requestId === 'r1').map((event) => event.id));
  });
});
