import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimRequest, EndEvent, JobRow, JobStore, NewJobRow } from '../../../src/studio/jobs/job-store.js';
import type { EventLog } from '../../../src/studio/store/repositories.js';
import { minute } from './harness.js';

// The JobStore contract: the durable queue as any store must keep it. Queue
// order (priority, then arrival), the limits counted over every holder (the
// pool's stored on each row, the overall one given), strict FIFO per ordering
// key, parked jobs that hold no slot and come first when due, one end per
// job, leases and their take-over, input files held until the retention
// sweep; and a claim is atomic, so two passes at once never take more than the limit.

export interface JobStoreHarness {
  readonly store: JobStore;
  /** The event log the store writes a job's terminal event to (JobEnd.event). */
  readonly events: EventLog;
  close(): Promise<void>;
}

/** A terminal event for JobEnd.event, and the seqs its `published` was called with. */
function endEvent(name: string, requestId: string): EndEvent & { readonly calls: number[] } {
  const calls: number[] = [];
  return {
    row: { data: JSON.stringify({ topic: 'generation', event: name, requestId }) },
    published: (seq) => void calls.push(seq),
    calls,
  };
}

const newJob = (id: string, overrides: Partial<NewJobRow> = {}): NewJobRow => ({
  id,
  kind: 'generate',
  lane: 'api',
  model: 'lang-5.6-luna',
  request: JSON.stringify({ prompt: id }),
  created_at: minute(0),
  priority: 0,
  ordering_key: null,
  fingerprint: null,
  attempt: 1,
  retry_of: null,
  pool: overrides.lane ?? 'api',
  pool_limit: null,
  budget_ms: null,
  reaches_at_start: 0,
  ...overrides,
});

/** A job in lane `lane`, whose pool allows `limit` at once. */
const inLane = (id: string, lane: string, limit: number | null = null, overrides: Partial<NewJobRow> = {}): NewJobRow =>
  newJob(id, { lane, pool: lane, pool_limit: limit, ...overrides });

/** A claim pass: `overall` slots, by `owner` with a lease until `until`, at `now`, of `kinds` (default: every kind used here). */
function limits(overall: number, options: { owner?: string; until?: number; now?: number; kinds?: readonly string[] } = {}): ClaimRequest {
  return {
    overall,
    owner: options.owner ?? 'engine-a',
    now: options.now ?? Date.parse(minute(1)),
    leaseUntil: options.until ?? Date.now() + 60_000,
    kinds: options.kinds ?? ['generate', 'trace', 'video'],
  };
}

const ids = (rows: readonly JobRow[]) => rows.map((row) => row.id);

export function describeJobStoreContract(name: string, make: () => Promise<JobStoreHarness>): void {
  describe(`JobStore contract: ${name}`, () => {
    let harness: JobStoreHarness;
    let store: JobStore;
    beforeEach(async () => {
      harness = await make();
      store = harness.store;
    });
    afterEach(() => harness.close());

    it('inserts a queued job once, answering its place; the same id again answers the row that has it', async () => {
      const inserted = await store.insert(newJob('a'), []);
      expect(inserted).toMatchObject({ position: 1, claimed: [] });
      expect(await store.find('a')).toMatchObject({
        ...newJob('a'),
        state: 'queued',
        finished_at: null,
        lease_owner: null,
        reached_upstream: 0,
      });
      expect(await store.insert(newJob('b'), [])).toMatchObject({ position: 2 });
      expect(await store.insert(newJob('a', { request: '{}' }), [])).toMatchObject({ existing: { id: 'a', request: newJob('a').request } });
      expect(await store.find('nope')).toBeUndefined();
      expect(ids(await store.unfinished())).toEqual(['a', 'b']);
    });

    it('orders the queue by priority, then arrival', async () => {
      await store.insert(newJob('low'), []);
      await store.insert(newJob('high', { priority: 5 }), []);
      await store.insert(newJob('low-2'), []);
      const position = async (id: string) => store.position((await store.find(id)) as JobRow);
      expect([await position('high'), await position('low'), await position('low-2')]).toEqual([1, 2, 3]);
      expect(ids(await store.claim(limits(2)))).toEqual(['high', 'low']);
    });

    it('claims in queue order within the overall and lane limits, counting what holds a slot already', async () => {
      for (const id of ['x1', 'x2', 'y1', 'y2']) await store.insert(inLane(id, id[0], id[0] === 'x' ? 1 : null, { budget_ms: 5000 }), []);
      const first = await store.claim(limits(3));
      expect(ids(first)).toEqual(['x1', 'y1', 'y2']);
      expect(first[0]).toMatchObject({ state: 'running', lease_owner: 'engine-a', started_at: minute(1) });
      // The deadline is the first start plus the stored budget.
      expect(first[0].deadline_at).toBe(Date.parse(minute(1)) + 5000);
      expect(await store.find('x1')).toMatchObject({ state: 'running', lease_owner: 'engine-a' });
      expect(await store.claim(limits(10))).toEqual([]);
      expect(await store.finish('x1', { state: 'succeeded', result: { ok: true } }, minute(2))).toBe(true);
      expect(ids(await store.claim(limits(10)))).toEqual(['x2']);
    });

    it('runs the jobs of one ordering key strictly one after another, in order', async () => {
      await store.insert(newJob('k1', { ordering_key: 'agent:s1' }), []);
      await store.insert(newJob('k2', { ordering_key: 'agent:s1' }), []);
      await store.insert(newJob('other', { ordering_key: 'agent:s2' }), []);
      expect(ids(await store.claim(limits(10)))).toEqual(['k1', 'other']);
      expect(await store.claim(limits(10))).toEqual([]);
      await store.finish('k1', { state: 'failed', error: { code: 'X' } }, minute(2));
      expect(ids(await store.claim(limits(10)))).toEqual(['k2']);
    });

    it('claims a job as it is inserted when a slot is free and nothing waits; leaves what this holder does not accept', async () => {
      expect(await store.insert(newJob('a', { reaches_at_start: 1 }), [], limits(1))).toMatchObject({
        position: 1,
        claimed: [{ id: 'a', state: 'running', reached_upstream: 1 }],
      });
      expect(await store.insert(newJob('b'), [], limits(1))).toMatchObject({ position: 1, claimed: [] });
      expect((await store.find('b'))?.state).toBe('queued');
      await store.insert(newJob('c', { kind: 'trace' }), []);
      expect(await store.claim(limits(10, { kinds: ['generate'] }))).toMatchObject([{ id: 'b', reached_upstream: 0 }]);
    });

    it('lets two claim passes at once take no more than the limit together', async () => {
      for (const id of ['a', 'b', 'c', 'd']) await store.insert(newJob(id), []);
      const passes = await Promise.all([
        store.claim(limits(2, { owner: 'engine-a' })),
        store.claim(limits(2, { owner: 'engine-b' })),
        store.claim(limits(2, { owner: 'engine-c' })),
      ]);
      const claimed = passes.flat();
      expect(claimed).toHaveLength(2);
      expect(new Set(ids(claimed)).size).toBe(2);
    });

    it('parks a running job: it holds no slot, is no orphan, and is claimed again once due, before work accepted later', async () => {
      const now = Date.parse(minute(1));
      await store.insert(inLane('video', 'v', 1, { kind: 'video' }), [], limits(1, { now }));
      await store.insert(inLane('next', 'v', 1, { kind: 'video' }), []);
      expect(await store.park('video', 'engine-b', now + 5000, 1, minute(1))).toBe(false);
      expect(await store.park('video', 'engine-a', now + 5000, 1, minute(1))).toBe(true);
      expect(await store.find('video')).toMatchObject({ state: 'waiting', lease_owner: null, next_check_at: now + 5000, polls: 1 });
      expect(await store.nextWake()).toBe(now + 5000);
      expect(await store.orphans(now + 60_000, () => true)).toEqual([]);
      // Its slot is free: the next job of the lane starts; the parked one is not due yet.
      expect(ids(await store.claim(limits(1, { now })))).toEqual(['next']);
      expect(await store.claim(limits(5, { now: now + 5000 }))).toEqual([]);
      await store.finish('next', { state: 'succeeded' }, minute(2));
      // Accepted after the parked one: it waits its turn.
      await store.insert(inLane('later', 'v', 1, { kind: 'video' }), []);
      const again = await store.claim(limits(5, { now: now + 5000, owner: 'engine-c' }));
      expect(again).toMatchObject([{ id: 'video', state: 'running', lease_owner: 'engine-c', polls: 1, next_check_at: null }]);
      expect(await store.nextWake()).toBeNull();
    });

    it('keeps a parked job at the head of its ordering key, and takes it out of turn for a cancel', async () => {
      const now = Date.parse(minute(1));
      await store.insert(newJob('t1', { ordering_key: 'agent:s1' }), [], limits(5, { now }));
      await store.insert(newJob('t2', { ordering_key: 'agent:s1' }), []);
      await store.park('t1', 'engine-a', now + 60_000, 0, minute(1));
      expect(await store.claim(limits(5, { now }))).toEqual([]);
      expect(await store.take('t2', 'engine-a', now + 60_000, minute(2))).toBeUndefined();
      expect(await store.requestCancel('t1', minute(2))).toBe(true);
      expect(await store.take('t1', 'engine-b', now + 60_000, minute(2))).toMatchObject({
        id: 't1',
        state: 'running',
        lease_owner: 'engine-b',
        cancel_requested: 1,
      });
      expect(await store.take('t1', 'engine-c', now + 60_000, minute(2))).toBeUndefined();
      // A job asked to cancel is not parked: its holder ends it.
      expect(await store.park('t1', 'engine-b', now + 1000, 0, minute(2))).toBe(false);
    });

    it('ends a job once, keeping its result or error; `from` ends it only from that state', async () => {
      await store.insert(newJob('a'), [], limits(1));
      expect(await store.finish('a', { state: 'cancelled', from: 'queued' }, minute(2))).toBe(false);
      expect(await store.finish('a', { state: 'succeeded', phase: 'done', result: { images: ['x.png'] } }, minute(2))).toBe(true);
      expect(await store.finish('a', { state: 'failed', error: { code: 'LATE' } }, minute(3))).toBe(false);
      const row = await store.find('a');
      expect(row).toMatchObject({ state: 'succeeded', phase: 'done', finished_at: minute(2), lease_owner: null });
      expect(JSON.parse(row?.result ?? 'null')).toEqual({ images: ['x.png'] });
      expect(await store.unfinished()).toEqual([]);
      expect(ids(await store.finishedSince(minute(1), 10))).toEqual(['a']);
      expect(await store.finishedSince(minute(5), 10)).toEqual([]);
    });

    it("writes a job's terminal event with its end, after the events appended before it: both or neither; `published` once it has committed", async () => {
      await store.insert(newJob('a'), [], limits(1));
      const { newest } = await harness.events.after(Number.MAX_SAFE_INTEGER, 0);
      // Appended just before (over PostgreSQL still waiting for its turn's write): the end's event comes after it.
      const earlier = harness.events.append({ data: '{"event":"earlier"}' });
      const done = endEvent('done', 'a');
      expect(await store.finish('a', { state: 'succeeded', result: { images: ['x.png'] }, event: done }, minute(2))).toBe(true);
      expect(done.calls).toHaveLength(1);
      const [seq] = done.calls;
      expect(seq).toBeGreaterThan(await earlier);
      expect((await harness.events.after(newest, 10)).events).toEqual([
        { seq: await earlier, data: '{"event":"earlier"}' },
        { seq, data: done.row.data },
      ]);
      // An end that changes nothing writes no event and calls nothing.
      const late = endEvent('error', 'a');
      expect(await store.finish('a', { state: 'failed', error: { code: 'LATE' }, event: late }, minute(3))).toBe(false);
      expect(late.calls).toEqual([]);
      expect((await harness.events.after(seq, 10)).events).toEqual([]);
      expect(await store.find('a')).toMatchObject({ state: 'succeeded' });
    });

    it("writes an interrupted orphan's event with its end as it is adopted", async () => {
      const now = Date.now();
      await store.insert(newJob('dead-owner'), [], limits(5, { owner: 'dead', until: now + 60_000 }));
      await store.markReachedUpstream('dead-owner', minute(2));
      const { newest } = await harness.events.after(Number.MAX_SAFE_INTEGER, 0);
      const error = endEvent('error', 'dead-owner');
      const orphans = await store.orphans(now, (owner) => owner === 'dead');
      const lease = () => ({ owner: 'engine-b', until: now + 60_000, at: minute(3) });
      const adopted = await store.adopt(orphans, lease, () => ({
        action: 'interrupted',
        error: { code: 'JOB_INTERRUPTED' },
        event: error,
      }));
      expect(adopted.map((entry) => entry.action)).toEqual(['interrupted']);
      expect(error.calls).toHaveLength(1);
      expect((await harness.events.after(newest, 10)).events).toEqual([{ seq: error.calls[0], data: error.row.data }]);
      expect(await store.find('dead-owner')).toMatchObject({ state: 'interrupted' });
    });

    it('keeps what a running job records: phase, activity, checkpoint, operation, cancel requests', async () => {
      await store.insert(newJob('a'), [], limits(1));
      await store.setPhase('a', 'generating', minute(2));
      await store.setActivity('a', 'waiting', 12345, minute(2));
      await store.markReachedUpstream('a', minute(2));
      await store.setOperation('a', { kind: 'poll', id: 'op-1' }, 'op-1', 'pending', minute(2));
      await store.setUpstreamState('a', 'running', minute(3));
      await store.setCancelConfirmed('a', true);
      const row = await store.find('a');
      expect(row).toMatchObject({
        phase: 'generating',
        state: 'waiting',
        next_check_at: 12345,
        reached_upstream: 1,
        upstream_operation_id: 'op-1',
        upstream_state: 'running',
        cancel_confirmed: 1,
      });
      expect(JSON.parse(row?.operation ?? 'null')).toEqual({ kind: 'poll', id: 'op-1' });
      expect(await store.cancelRequested('engine-a')).toEqual([]);
      expect(await store.requestCancel('a', minute(4))).toBe(true);
      expect(await store.cancelRequested('engine-a')).toEqual(['a']);
      expect(await store.cancelRequested('engine-b')).toEqual([]);
      await store.finish('a', { state: 'cancelled' }, minute(5));
      expect(await store.requestCancel('a', minute(6))).toBe(false);
    });

    it('finds orphans (lease run out, or a dead owner) and lets one holder take each over', async () => {
      const now = Date.now();
      await store.insert(newJob('expired'), [], limits(5, { owner: 'gone', until: now - 1 }));
      await store.insert(newJob('dead-owner'), []);
      await store.claim(limits(5, { owner: 'dead', until: now + 60_000 }));
      await store.insert(newJob('healthy'), []);
      await store.claim(limits(5, { owner: 'alive', until: now + 60_000 }));
      await store.markReachedUpstream('dead-owner', minute(2));
      const orphans = await store.orphans(now, (owner) => owner === 'dead');
      expect(ids(orphans).sort()).toEqual(['dead-owner', 'expired']);
      const lease = () => ({ owner: 'engine-b', until: now + 60_000, at: minute(3) });
      const adopted = await store.adopt(orphans, lease, () => ({ action: 'interrupted', error: { code: 'JOB_INTERRUPTED' } }));
      expect(adopted.map((entry) => [entry.row.id, entry.action]).sort()).toEqual([
        ['dead-owner', 'interrupted'],
        ['expired', 'requeued'],
      ]);
      expect(await store.find('expired')).toMatchObject({ state: 'queued', lease_owner: null });
      expect(await store.find('dead-owner')).toMatchObject({ state: 'interrupted', finished_at: minute(3) });
      // Taken over already: a second adopter wins nothing.
      expect(await store.adopt(orphans, lease, () => ({ action: 'resumed' }))).toEqual([]);
    });

    it('renews and releases the leases of one holder', async () => {
      const now = Date.now();
      await store.insert(newJob('a'), [], limits(5, { owner: 'engine-a', until: now + 1_000 }));
      await store.renewLeases('engine-a', now + 120_000);
      expect((await store.find('a'))?.lease_expires_at).toBe(now + 120_000);
      expect(await store.orphans(now + 60_000, () => false)).toEqual([]);
      await store.releaseLeases('engine-a');
      expect(ids(await store.orphans(now, () => false))).toEqual(['a']);
      const adopted = await store.adopt(
        await store.orphans(now, () => false),
        () => ({ owner: 'engine-b', until: now + 60_000, at: minute(3) }),
        () => ({ action: 'resumed' }),
      );
      expect(adopted).toMatchObject([{ action: 'requeued' }]);
    });

    it('lists the holders of unexpired leases, each with the slots it holds', async () => {
      const now = Date.now();
      for (const id of ['a1', 'a2', 'b1', 'gone1', 'parked', 'ended']) await store.insert(newJob(id), []);
      await store.claim(limits(2, { owner: 'engine-a', until: now + 60_000 }));
      await store.claim(limits(3, { owner: 'engine-b', until: now + 30_000 }));
      await store.claim(limits(4, { owner: 'gone', until: now - 1 }));
      await store.claim(limits(6, { owner: 'engine-c', until: now + 10_000 }));
      await store.park('parked', 'engine-c', now + 60_000, 0, minute(1));
      await store.finish('ended', { state: 'succeeded' }, minute(2));
      // engine-c holds nothing now (a parked job is no one's), and gone's lease ran out.
      expect(await store.holders(now)).toEqual([
        { owner: 'engine-a', running: 2, leaseExpiresAt: now + 60_000 },
        { owner: 'engine-b', running: 1, leaseExpiresAt: now + 30_000 },
      ]);
      expect(await store.holders(now + 45_000)).toEqual([{ owner: 'engine-a', running: 2, leaseExpiresAt: now + 60_000 }]);
    });

    it('holds input files while a job that names them is kept; the retention sweep lets them go', async () => {
      await store.insert(newJob('a'), ['h1', 'h2']);
      await store.insert(newJob('b'), ['h2']);
      expect((await store.inputHashes('a')).sort()).toEqual(['h1', 'h2']);
      expect(await store.inputHeld('h1')).toBe(true);
      expect(await store.inputHeld('h3')).toBe(false);
      await store.finish('a', { state: 'succeeded' }, minute(1));
      await store.finish('b', { state: 'succeeded' }, minute(10));
      expect(await store.sweepFinished(minute(5))).toBe(1);
      expect(await store.find('a')).toBeUndefined();
      expect(await store.inputHeld('h1')).toBe(false);
      expect(await store.inputHeld('h2')).toBe(true);
    });

    it('answers every attempt of a job, the first one first', async () => {
      await store.insert(newJob('a'), []);
      await store.finish('a', { state: 'failed', error: { code: 'X' } }, minute(1));
      await store.insert(newJob('a~2', { attempt: 2, retry_of: 'a' }), []);
      await store.insert(newJob('unrelated'), []);
      expect(ids(await store.attempts('a'))).toEqual(['a', 'a~2']);
    });
  });
}
