import { describe, expect, it } from 'vitest';
import { EventChannel } from '../../src/common/events/channel.js';
import type { EventBus } from '../../src/common/events/types.js';

// The EventBus port as the channel implements it: what producers and
// in-process consumers use (publish, subscribe, replay), without SSE.

describe('the event channel as an EventBus', () => {
  it('replays the events after a cursor with their cursors, transient fields omitted; an unknown cursor starts with replay_gap', async () => {
    const channel = new EventChannel({ replaySize: 10 });
    const bus: EventBus = channel;
    const seen: string[] = [];
    const unsubscribe = bus.subscribe((event) => seen.push(`${event.event}:${String(event.n)}`));
    const first = channel.publish('test', 'tick', { n: 1 });
    const second = channel.publish('test', 'tick', { n: 2, b64: 'big' }, { transientFields: ['b64'] });
    const third = channel.publish('test', 'tock', { n: 3 }, { payloadId: 'message-3' });
    unsubscribe();
    bus.publish('test', 'tick', { n: 4 });
    expect(seen).toEqual(['tick:1', 'tick:2', 'tock:3']);

    const replayed = await bus.replay(first.id);
    expect(replayed.map((event) => event.id)).toEqual([second.id, third.id, expect.any(String)]);
    expect(replayed[0]).toMatchObject({ topic: 'test', event: 'tick', n: 2, omitted: ['b64'] });
    expect(replayed[0]).not.toHaveProperty('b64');
    expect(replayed[1]).toMatchObject({ event: 'tock', n: 3 });

    const gap = await bus.replay('not-a-cursor');
    expect(gap[0]).toMatchObject({ topic: 'system', event: 'replay_gap', reason: 'invalid_cursor' });
    expect(gap.slice(1).map((event) => event.n)).toEqual([1, 2, 3, 4]);
  });
});
