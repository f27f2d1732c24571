import { describe, expect, it } from 'vitest';
import type { ChannelEvent, EventBus } from '../../../src/common/events/types.js';

// The EventBus contract: what producers and in-process consumers rely on.
// Every answer is awaited, and events are watched through subscribers: a bus
// over a log shared by several studios gives an event its id at commit and
// sends it live from there, so its subscribers hear of it a little later.

/** Waits for a state of the bus (never for a moment). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 2000 && !check(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error(`gave up waiting for ${what}`);
}

/** Every event the bus sends live from now on. */
function watch(bus: EventBus): { readonly seen: ChannelEvent[]; leave(): void } {
  const seen: ChannelEvent[] = [];
  const leave = bus.subscribe((event) => seen.push(event));
  return { seen, leave };
}

export function describeEventBusContract(name: string, make: (options: { replaySize: number }) => EventBus | Promise<EventBus>): void {
  describe(`EventBus contract: ${name}`, () => {
    it('publishes events with unique ids, their topic, name and fields', async () => {
      const bus = await make({ replaySize: 10 });
      const { seen } = watch(bus);
      bus.publish('jobs', 'phase', { requestId: 'r1', phase: 'queued' });
      bus.publish('jobs', 'phase', { requestId: 'r1', phase: 'running' });
      await until(() => seen.length === 2, 'both events');
      expect(seen[0]).toMatchObject({ topic: 'jobs', event: 'phase', requestId: 'r1', phase: 'queued' });
      expect(seen[1]).toMatchObject({ topic: 'jobs', event: 'phase', requestId: 'r1', phase: 'running' });
      expect(typeof seen[0].id).toBe('string');
      expect(seen[0].id).not.toBe(seen[1].id);
    });

    it('delivers to subscribers in order, from their subscription on, until they leave', async () => {
      const bus = await make({ replaySize: 10 });
      bus.publish('test', 'before', {});
      expect(bus.hasAudience).toBe(false);
      const seen: ChannelEvent[] = [];
      const leave = bus.subscribe((event) => seen.push(event));
      expect(bus.hasAudience).toBe(true);
      for (let n = 1; n <= 5; n += 1) bus.publish('test', 'tick', { n, b64: 'big' }, { transientFields: ['b64'] });
      await until(() => seen.length >= 5, 'the five ticks');
      leave();
      expect(bus.hasAudience).toBe(false);
      bus.publish('test', 'after', {});
      const other = watch(bus);
      bus.publish('test', 'last', {});
      await until(() => other.seen.some((event) => event.event === 'last'), 'the last event');
      expect(seen.map((event) => event.n)).toEqual([1, 2, 3, 4, 5]);
      // Live listeners receive the transient fields.
      expect(seen[0].b64).toBe('big');
    });

    it('keeps delivering to other subscribers when one throws', async () => {
      const bus = await make({ replaySize: 10 });
      const seen: unknown[] = [];
      bus.subscribe(() => {
        throw new Error('a bad listener');
      });
      bus.subscribe((event) => seen.push(event.n));
      bus.publish('test', 'tick', { n: 1 });
      bus.publish('test', 'tick', { n: 2 });
      await until(() => seen.length === 2, 'both events');
      expect(seen).toEqual([1, 2]);
    });

    it('replays what came after a cursor, oldest first, without transient fields; a replay sees every event published before it', async () => {
      const bus = await make({ replaySize: 10 });
      const { seen } = watch(bus);
      bus.publish('test', 'tick', { n: 0 });
      for (const n of [1, 2, 3]) bus.publish('test', 'tick', { n, b64: 'big' }, { transientFields: ['b64'] });
      await until(() => seen.length === 4, 'the four events');
      const [cursor, ...published] = seen;
      const replayed = await bus.replay(cursor.id);
      expect(replayed.map((event) => event.id)).toEqual(published.map((event) => event.id));
      expect(replayed.map((event) => event.n)).toEqual([1, 2, 3]);
      expect(replayed[0]).not.toHaveProperty('b64');
      expect(replayed[0]).toMatchObject({ omitted: ['b64'] });
      expect(await bus.replay(published[2].id)).toEqual([]);
      bus.publish('test', 'tick', { n: 4 });
      expect((await bus.replay(published[2].id)).map((event) => event.n)).toEqual([4]);
    });

    it('answers a cursor it cannot honour with a replay_gap notice, then every event held', async () => {
      const bus = await make({ replaySize: 3 });
      const { seen } = watch(bus);
      for (let n = 1; n <= 5; n += 1) bus.publish('test', 'tick', { n });
      await until(() => seen.length === 5, 'the five events');
      const evicted = await bus.replay(seen[0].id);
      expect(evicted[0]).toMatchObject({ topic: 'system', event: 'replay_gap', reason: 'evicted', oldestId: seen[2].id });
      expect(evicted.slice(1).map((event) => event.n)).toEqual([3, 4, 5]);
      const invalid = await bus.replay('not a cursor');
      expect(invalid[0]).toMatchObject({ topic: 'system', event: 'replay_gap', reason: 'invalid_cursor' });
      expect(invalid.slice(1).map((event) => event.n)).toEqual([3, 4, 5]);
    });
  });
}
