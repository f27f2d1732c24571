import { describe, expect, it } from 'vitest';
import type { ChannelEvent, EventBus } from '../../../src/common/events/types.js';

// The EventBus contract: what producers and in-process consumers rely on.
// Every answer is awaited, so a bus whose replay is asynchronous runs it too.

export function describeEventBusContract(name: string, make: (options: { replaySize: number }) => EventBus): void {
  describe(`EventBus contract: ${name}`, () => {
    it('publishes events with unique ids, their topic, name and fields', async () => {
      const bus = make({ replaySize: 10 });
      const first = bus.publish('jobs', 'phase', { requestId: 'r1', phase: 'queued' });
      const second = bus.publish('jobs', 'phase', { requestId: 'r1', phase: 'running' });
      expect(first).toMatchObject({ topic: 'jobs', event: 'phase', requestId: 'r1', phase: 'queued' });
      expect(typeof first.id).toBe('string');
      expect(first.id).not.toBe(second.id);
    });

    it('delivers to subscribers in order, from their subscription on, until they leave', async () => {
      const bus = make({ replaySize: 10 });
      bus.publish('test', 'before', {});
      expect(bus.hasAudience).toBe(false);
      const seen: ChannelEvent[] = [];
      const leave = bus.subscribe((event) => seen.push(event));
      expect(bus.hasAudience).toBe(true);
      for (let n = 1; n <= 5; n += 1) bus.publish('test', 'tick', { n, b64: 'big' }, { transientFields: ['b64'] });
      leave();
      bus.publish('test', 'after', {});
      expect(bus.hasAudience).toBe(false);
      expect(seen.map((event) => event.n)).toEqual([1, 2, 3, 4, 5]);
      // Live listeners receive the transient fields.
      expect(seen[0].b64).toBe('big');
    });

    it('keeps delivering to other subscribers when one throws', async () => {
      const bus = make({ replaySize: 10 });
      const seen: unknown[] = [];
      bus.subscribe(() => {
        throw new Error('a bad listener');
      });
      bus.subscribe((event) => seen.push(event.n));
      bus.publish('test', 'tick', { n: 1 });
      expect(seen).toEqual([1]);
    });

    it('replays what came after a cursor, oldest first, without transient fields', async () => {
      const bus = make({ replaySize: 10 });
      const cursor = bus.publish('test', 'tick', { n: 0 });
      const published = [1, 2, 3].map((n) => bus.publish('test', 'tick', { n, b64: 'big' }, { transientFields: ['b64'] }));
      const replayed = await bus.replay(cursor.id);
      expect(replayed.map((event) => event.id)).toEqual(published.map((event) => event.id));
      expect(replayed.map((event) => event.n)).toEqual([1, 2, 3]);
      expect(replayed[0]).not.toHaveProperty('b64');
      expect(await bus.replay(published[2].id)).toEqual([]);
    });

    it('answers a cursor it cannot honour with a replay_gap notice, then every event held', async () => {
      const bus = make({ replaySize: 3 });
      const oldest = bus.publish('test', 'tick', { n: 1 });
      for (let n = 2; n <= 5; n += 1) bus.publish('test', 'tick', { n });
      const evicted = await bus.replay(oldest.id);
      expect(evicted[0]).toMatchObject({ topic: 'system', event: 'replay_gap' });
      expect(evicted.slice(1).map((event) => event.n)).toEqual([3, 4, 5]);
      const invalid = await bus.replay('not a cursor');
      expect(invalid[0]).toMatchObject({ topic: 'system', event: 'replay_gap', reason: 'invalid_cursor' });
      expect(invalid.slice(1).map((event) => event.n)).toEqual([3, 4, 5]);
    });
  });
}
