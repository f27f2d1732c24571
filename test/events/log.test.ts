import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { LogReplayStore, studioEventChannel, studioEvents } from '../../src/studio/event-bus.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';
import { openDatabase, type StudioDatabase } from '../../src/studio/store/database.js';
import { RESERVE, SqliteEventLog } from '../../src/studio/store/events.js';
import type { EventLog, EventLogPage } from '../../src/studio/store/repositories.js';
import { openRawStream, publishOverHttp, startChannelServer, waitFor, type RawStream, type TestServer } from './helpers.js';

// The studio's bus keeps its replay copies in the event log (SQLite): ids that outlive a restart,
// a bounded retention, and the same no-race replay as the buffer in memory even when the log answers late.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-event-log-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function database(dir = tempDir()): StudioDatabase {
  const db = openDatabase(join(dir, 'studio.db'));
  cleanups.push(async () => {
    // The logs over it write their last turn's rows first.
    await new Promise((resolve) => setImmediate(resolve));
    db.close();
  });
  return db;
}

async function server(log: EventLog, keep = 1000): Promise<TestServer> {
  const started = await startChannelServer({ store: new LogReplayStore(log, keep) });
  cleanups.push(() => started.stop());
  return started;
}

async function stream(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  const opened = await openRawStream(url, headers);
  cleanups.push(() => opened.close());
  return opened;
}

const rows = (db: StudioDatabase) => db.prepare('SELECT seq, data FROM events ORDER BY seq').all() as Array<{ seq: number; data: string }>;

/** `log` with its reads answered by `after` (a late or failing log); the rest goes to `log`. */
const withReads = (log: SqliteEventLog, after: EventLog['after']): EventLog => ({
  logId: log.logId,
  dense: log.dense,
  append: (event) => log.append(event),
  trim: (keep) => log.trim(keep),
  close: () => log.close(),
  after,
});

describe('the studio event bus over the event log', () => {
  it('issues ids <logId>-<seq> from the log; the log holds each replay copy, never a transient field', async () => {
    const db = database();
    const log = new SqliteEventLog(db);
    const bus = studioEventChannel(log, { replaySize: 10 });
    const plain = bus.publish('generation', 'phase', { requestId: 'r1', phase: 'queued' });
    const partial = bus.publish(
      'generation',
      'partial',
      { requestId: 'r1', index: 0, b64: 'x'.repeat(5000) },
      { transientFields: ['b64'] },
    );
    const message = bus.publish('chat', 'message', { content: 'hi' }, { payloadId: 'message-7' });
    expect([plain.id, partial.id, message.id]).toEqual([`${log.logId}-1`, `${log.logId}-2`, `${log.logId}-3`]);
    expect(partial.b64).toHaveLength(5000);
    // Rows are written once per turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows(db)).toEqual([
      { seq: 1, data: '{"topic":"generation","event":"phase","requestId":"r1","phase":"queued"}' },
      { seq: 2, data: '{"topic":"generation","event":"partial","requestId":"r1","index":0,"omitted":["b64"]}' },
      { seq: 3, data: '{"topic":"chat","event":"message","content":"hi"}' },
    ]);
    const replayed = await bus.replay(plain.id);
    expect(replayed).toEqual([
      { topic: 'generation', event: 'partial', requestId: 'r1', index: 0, omitted: ['b64'], id: partial.id },
      { topic: 'chat', event: 'message', content: 'hi', id: message.id },
    ]);
  });

  it('keeps the newest replaySize events: an older cursor gets replay_gap evicted with what it missed, and the rows are trimmed', async () => {
    const db = database();
    const live = await server(new SqliteEventLog(db), 8);
    const ids: string[] = [];
    for (let n = 0; n < 30; n += 1) ids.push(await publishOverHttp(live, 'test', 'tick', { n }));
    const logId = ids[0].split('-')[0];

    const evicted = await stream(`${live.url}/api/events`, { 'last-event-id': ids[3] });
    const justHeld = await stream(`${live.url}/api/events`, { 'last-event-id': ids[21] });
    await waitFor(() => evicted.frames.length === 1 + 8 && justHeld.frames.length === 8, 'the replays');
    const [gap, ...held] = evicted.events();
    expect(gap).toEqual({
      topic: 'system',
      event: 'replay_gap',
      reason: 'evicted',
      requestedId: ids[3],
      oldestId: ids[22],
      missed: 18,
      id: `${logId}-22-gap`,
    });
    expect(held.map((event) => event.id)).toEqual(ids.slice(22));
    expect(justHeld.events().map((event) => event.id)).toEqual(ids.slice(22));
    // Trims run in batches of an eighth of the retention: at most one batch more than it is ever on disk.
    const kept = rows(db);
    expect(kept.length).toBeGreaterThanOrEqual(8);
    expect(kept.length).toBeLessThanOrEqual(8 + 1);
    expect(kept.at(-1)?.seq).toBe(30);
  });

  it('answers a cursor of another (or a wiped) database with unknown_run, one past the newest with invalid_cursor', async () => {
    const elsewhere = new SqliteEventLog(database());
    const foreign = studioEventChannel(elsewhere).publish('test', 'tick', {}).id;
    const log = new SqliteEventLog(database());
    const bus = studioEventChannel(log, { replaySize: 10 });
    const published = [1, 2].map((n) => bus.publish('test', 'tick', { n }).id);
    const unknown = await bus.replay(foreign);
    expect(unknown[0]).toEqual({
      topic: 'system',
      event: 'replay_gap',
      reason: 'unknown_run',
      requestedId: foreign,
      oldestId: published[0],
      id: `${log.logId}-0-gap`,
    });
    expect(unknown.slice(1).map((event) => event.id)).toEqual(published);
    const future = await bus.replay(`${log.logId}-3`);
    expect(future[0]).toMatchObject({ reason: 'invalid_cursor', requestedId: `${log.logId}-3` });
    expect(future.slice(1).map((event) => event.id)).toEqual(published);
    expect(await bus.replay(published[1])).toEqual([]);
  });

  it('replays from a log that answers late without losing, repeating or reordering the events published meanwhile', async () => {
    const log = new SqliteEventLog(database());
    let release: () => void = () => {};
    let reads = 0;
    // Each read is taken now (the log's state of this moment), answered once the test lets it go.
    const late = withReads(log, async (seq, limit) => {
      const page: EventLogPage = await log.after(seq, limit);
      reads += 1;
      await new Promise<void>((resolve) => (release = resolve));
      return page;
    });
    const live = await server(late, 100);
    await waitFor(() => reads === 1, 'the start-up read');
    release();
    const before: string[] = [];
    for (let n = 0; n < 5; n += 1) before.push(await publishOverHttp(live, 'test', 'tick', { n }));

    // The response's head comes with its replay: not awaited before the log answers.
    const opening = stream(`${live.url}/api/events`, { 'last-event-id': before[1] });
    await waitFor(() => reads === 2, 'the replay read');
    // Published after the replay was read and before it is answered: held, then sent after it.
    const during = [await publishOverHttp(live, 'test', 'tick', { n: 5 }), await publishOverHttp(live, 'test', 'tick', { n: 6 })];
    expect(live.channel.hasAudience).toBe(true);
    release();
    const resumed = await opening;
    const after = [await publishOverHttp(live, 'test', 'tick', { n: 7 })];
    await waitFor(() => resumed.frames.length === 3 + 2 + 1, 'replay, held and live events');
    expect(resumed.events().map((event) => event.id)).toEqual([...before.slice(2), ...during, ...after]);
    expect(resumed.events().map((event) => event.n)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it('does not send twice an event that was published while the replay was read and is in it', async () => {
    const log = new SqliteEventLog(database());
    let hold: Promise<void> = Promise.resolve();
    let letGo: () => void = () => {};
    // The read is taken only once the test lets it go: events published before are in it.
    const late = withReads(log, async (seq, limit) => {
      await hold;
      return log.after(seq, limit);
    });
    const live = await server(late, 100);
    const first = await publishOverHttp(live, 'test', 'tick', { n: 0 });
    hold = new Promise<void>((resolve) => (letGo = resolve));
    const opening = stream(`${live.url}/api/events`, { 'last-event-id': first });
    await waitFor(() => live.channel.hasAudience, 'the connection to be registered');
    const during = [await publishOverHttp(live, 'test', 'tick', { n: 1 }), await publishOverHttp(live, 'test', 'tick', { n: 2 })];
    letGo();
    const resumed = await opening;
    const after = await publishOverHttp(live, 'test', 'tick', { n: 3 });
    await waitFor(() => resumed.frames.length >= 3, 'replay and live events');
    await publishOverHttp(live, 'test', 'tick', { n: 4 });
    await waitFor(() => resumed.frames.length >= 4, 'the last event');
    expect(resumed.events().map((event) => event.n)).toEqual([1, 2, 3, 4]);
    expect(resumed.events()[2].id).toBe(after);
    expect(
      resumed
        .events()
        .slice(0, 2)
        .map((event) => event.id),
    ).toEqual(during);
  });

  it('refuses, as a slow consumer, a connection for which more arrived while its replay was read than it may have unsent', async () => {
    const log = new SqliteEventLog(database());
    let hold: Promise<void> = Promise.resolve();
    let letGo: () => void = () => {};
    const late = withReads(log, async (seq, limit) => {
      await hold;
      return log.after(seq, limit);
    });
    const live = await startChannelServer({ store: new LogReplayStore(late, 100), maxBufferedBytes: 10_000 });
    cleanups.push(() => live.stop());
    const first = await publishOverHttp(live, 'test', 'tick', { n: 0 });
    hold = new Promise<void>((resolve) => (letGo = resolve));
    const opening = fetch(`${live.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': first } });
    await waitFor(() => live.channel.hasAudience, 'the connection to be registered');
    for (let n = 1; n <= 3; n += 1) await publishOverHttp(live, 'test', 'big', { payload: 'x'.repeat(4000) });
    letGo();
    const refused = await opening;
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(live.channel.listenerCount).toBe(0);
    const resumed = await stream(`${live.url}/api/events`, { 'last-event-id': first });
    await waitFor(() => resumed.frames.length === 3, 'the replay');
    expect(resumed.events().map((event) => event.event)).toEqual(['big', 'big', 'big']);
  });

  it('answers 503 when the log cannot be read, and the same cursor works once it can', async () => {
    const log = new SqliteEventLog(database());
    let broken = false;
    const flaky = withReads(log, async (seq, limit) => {
      if (broken) throw new Error('the database is gone');
      return log.after(seq, limit);
    });
    const live = await server(flaky, 100);
    const ids = [await publishOverHttp(live, 'test', 'tick', { n: 0 }), await publishOverHttp(live, 'test', 'tick', { n: 1 })];
    broken = true;
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const refused = await fetch(`${live.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': ids[0] } });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
    expect(live.channel.listenerCount).toBe(0);
    broken = false;
    const resumed = await stream(`${live.url}/api/events`, { 'last-event-id': ids[0] });
    await waitFor(() => resumed.frames.length === 1, 'the replay');
    expect(resumed.events()[0].id).toBe(ids[1]);
  });
});

describe('the SQLite event log', () => {
  it('never gives a seq twice: not after a crash (the block it held is skipped), not to two processes on one file', async () => {
    const dir = tempDir();
    const file = join(dir, 'studio.db');
    const crashed = openDatabase(file);
    const errors: unknown[] = [];
    const first = new SqliteEventLog(crashed, (error) => errors.push(error));
    const bus = studioEventChannel(first, { replaySize: 100 });
    const written = [1, 2].map((n) => bus.publish('test', 'tick', { n }).id);
    await first.after(0, 0);
    // Went live, then the process died before its turn ended: the row is never written.
    const lost = bus.publish('test', 'tick', { n: 3 }).id;
    crashed.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);

    const db = database(dir);
    const log = new SqliteEventLog(db);
    const restarted = studioEventChannel(log, { replaySize: 100 });
    const next = restarted.publish('test', 'tick', { n: 4 }).id;
    expect(next).toBe(`${log.logId}-${RESERVE + 1}`);
    expect((await log.after(0, 10)).events.map((event) => event.seq)).toEqual([1, 2, RESERVE + 1]);
    // The client that saw the lost event resumes after it: what followed, no gap, nothing twice.
    expect((await restarted.replay(lost)).map((event) => event.id)).toEqual([next]);
    expect((await restarted.replay(written[1])).map((event) => event.id)).toEqual([next]);

    // A second process on the same file takes its own block.
    const other = new SqliteEventLog(database(dir));
    const theirs = other.append({ data: '{"topic":"test","event":"other"}' });
    expect(theirs).toBe(2 * RESERVE + 1);
    expect(log.append({ data: '{"topic":"test","event":"mine"}' })).toBe(RESERVE + 2);
    await other.close();
    expect((await log.after(RESERVE, 10)).events.map((event) => event.seq)).toEqual([RESERVE + 1, RESERVE + 2, 2 * RESERVE + 1]);
  });

  it('writes what is pending and gives the rest of its block back on a clean close: the next run carries on', async () => {
    const dir = tempDir();
    const file = join(dir, 'studio.db');
    const before = openDatabase(file);
    const first = new SqliteEventLog(before);
    expect([first.append({ data: '{"topic":"a","event":"b"}' }), first.append({ data: '{"topic":"a","event":"c"}' })]).toEqual([1, 2]);
    await first.close();
    before.close();
    const log = new SqliteEventLog(database(dir));
    expect(log.append({ data: '{"topic":"a","event":"d"}' })).toBe(3);
    expect((await log.after(0, 10)).events.map((event) => event.seq)).toEqual([1, 2, 3]);
  });
});

describe('a studio restarted on the same home', () => {
  it('resumes a cursor from before the restart with exactly the events after it, no gap', async () => {
    const home = tempDir();
    const start = () => startStudio({ port: 0, descriptor: false, env: { PATH: process.env.PATH, SVC_HOME: home } });
    let studio: RunningStudio = await start();
    const running = studio;
    cleanups.push(() => running.close());
    const before = [0, 1, 2, 3].map((n) => studio.ctx.channel.publish('test', 'before', { n }).id);
    await studio.close();
    cleanups.pop();

    studio = await start();
    const restarted = studio;
    cleanups.push(() => restarted.close());
    const afterRestart = [4, 5].map((n) => studio.ctx.channel.publish('test', 'after', { n }).id);
    expect(afterRestart[0].split('-')[0]).toBe(before[0].split('-')[0]);
    const resumed = await stream(`${studio.url}/api/events`, { 'last-event-id': before[1] });
    const byQuery = await stream(`${studio.url}/api/events?lastEventId=${encodeURIComponent(before[3])}`);
    await waitFor(() => resumed.frames.length === 4 && byQuery.frames.length === 2, 'the replays');
    const live = studio.ctx.channel.publish('test', 'live', { n: 6 }).id;
    await waitFor(() => resumed.frames.length === 5 && byQuery.frames.length === 3, 'the live event');
    expect(resumed.events().map((event) => event.id)).toEqual([before[2], before[3], ...afterRestart, live]);
    expect(resumed.events().map((event) => event.n)).toEqual([2, 3, 4, 5, 6]);
    expect(resumed.frames.map((frame) => frame.id)).toEqual([before[2], before[3], ...afterRestart, live]);
    expect(byQuery.events().map((event) => event.id)).toEqual([...afterRestart, live]);
  });
});

describe('the outbox', () => {
  it('publishes an event appended by a store transaction with its row change once it commits; a rollback appends and sends nothing', async () => {
    const db = database();
    db.exec('CREATE TABLE outbox_test (id TEXT PRIMARY KEY, state TEXT NOT NULL)');
    const log = new SqliteEventLog(db);
    const { channel, outbox } = studioEvents(log, { replaySize: 10 });
    const seen: ChannelEvent[] = [];
    channel.subscribe((event) => seen.push(event));
    const first = channel.publish('test', 'before', {});

    const done = outbox.prepare('generation', 'done', { requestId: 'r1', b64: 'big' }, { transientFields: ['b64'] });
    const seq = db.transaction(() => {
      db.prepare("INSERT INTO outbox_test (id, state) VALUES ('r1', 'succeeded')").run();
      return log.appendInTransaction(done.row);
    })();
    expect(seen.map((event) => event.event)).toEqual(['before']);
    done.published(seq);
    const live = seen.at(-1);
    expect(live).toMatchObject({ topic: 'generation', event: 'done', requestId: 'r1', b64: 'big', id: `${log.logId}-${seq}` });

    const failed = outbox.prepare('generation', 'error', { requestId: 'r2' });
    expect(() =>
      db.transaction(() => {
        log.appendInTransaction(failed.row);
        db.prepare("INSERT INTO outbox_test (id, state) VALUES ('r1', 'duplicate')").run();
      })(),
    ).toThrow(/UNIQUE/);
    // The rolled-back event's seq is never given again.
    const after = channel.publish('test', 'after', {});
    expect(after.id).toBe(`${log.logId}-${seq + 2}`);
    expect((await channel.replay(first.id)).map((event) => [event.event, event.id, event.b64])).toEqual([
      ['done', live?.id, undefined],
      ['after', after.id, undefined],
    ]);
    expect(seen.map((event) => event.event)).toEqual(['before', 'done', 'after']);
  });
});
