import { afterEach, describe, expect, it } from 'vitest';
import type { EventLog } from '../../../src/studio/store/repositories.js';

// The EventLog contract: what the studio's event bus relies on (studio/event-bus.ts). Every
// read and every append is awaited (a log shared by several studios answers an append's seq at
// commit); `reopen` opens the same log again as a restart would (a new connection to the same
// database), `make` a new, empty database.

export interface EventLogHarness {
  readonly log: EventLog;
  /** The same database opened again (the first handle is closed): a restart. */
  reopen(): Promise<EventLog>;
  close(): Promise<void>;
}

const event = (n: number, payloadId?: string) => ({
  data: JSON.stringify({ topic: 'test', event: 'tick', n }),
  ...(payloadId ? { payloadId } : {}),
});

export function describeEventLogContract(name: string, make: () => Promise<EventLogHarness>): void {
  describe(`EventLog contract: ${name}`, () => {
    const open: EventLogHarness[] = [];
    const fresh = async () => {
      const harness = await make();
      open.push(harness);
      return harness;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((harness) => harness.close()));
    });

    it('starts empty, with a log id a cursor can carry', async () => {
      const { log } = await fresh();
      expect(log.logId).toMatch(/^[0-9a-z]{1,32}$/);
      expect(await log.after(0, 10)).toEqual({ events: [], oldest: undefined, newest: 0 });
    });

    it('gives every append a larger seq and reads them back after a seq, oldest first, within the limit', async () => {
      const { log } = await fresh();
      const seqs = await Promise.all([1, 2, 3, 4, 5].map((n) => log.append(event(n, n === 2 ? 'message-2' : undefined))));
      for (let index = 1; index < seqs.length; index += 1) {
        expect(seqs[index]).toBeGreaterThan(seqs[index - 1]);
        if (log.dense) expect(seqs[index]).toBe(seqs[index - 1] + 1);
      }
      const all = await log.after(0, 10);
      expect(all.events).toEqual(seqs.map((seq, index) => ({ seq, ...event(index + 1, index === 1 ? 'message-2' : undefined) })));
      expect(all).toMatchObject({ oldest: seqs[0], newest: seqs[4] });
      const page = await log.after(seqs[1], 2);
      expect(page.events.map((each) => each.seq)).toEqual([seqs[2], seqs[3]]);
      expect(page).toMatchObject({ oldest: seqs[0], newest: seqs[4] });
      expect((await log.after(seqs[4], 10)).events).toEqual([]);
      expect((await log.after(seqs[0], 0)).events).toEqual([]);
    });

    it('trims all but the newest events, and never gives a trimmed seq again', async () => {
      const { log } = await fresh();
      const seqs = await Promise.all([1, 2, 3, 4, 5].map((n) => log.append(event(n))));
      expect(await log.trim(2)).toBe(3);
      expect(await log.after(0, 10)).toMatchObject({ oldest: seqs[3], newest: seqs[4] });
      expect((await log.after(0, 10)).events.map((each) => each.seq)).toEqual([seqs[3], seqs[4]]);
      expect(await log.trim(2)).toBe(0);
      expect(await log.trim(0)).toBe(2);
      expect(await log.after(0, 10)).toEqual({ events: [], oldest: undefined, newest: seqs[4] });
      expect(await log.append(event(6))).toBeGreaterThan(seqs[4]);
    });

    it('gives appends made one after another increasing seqs, and a read sees every append made before it', async () => {
      const { log } = await fresh();
      const first = await log.append(event(1));
      const second = log.append(event(2));
      const third = log.append(event(3));
      // Not awaited: the read itself must see them.
      const page = await log.after(first, 10);
      expect(page.events).toEqual([
        { seq: await second, ...event(2) },
        { seq: await third, ...event(3) },
      ]);
      expect(await second).toBeGreaterThan(first);
      expect(page.newest).toBe(await third);
      const trimmedWith = log.append(event(4));
      expect(await log.trim(1)).toBe(3);
      expect((await log.after(0, 10)).events).toEqual([{ seq: await trimmedWith, ...event(4) }]);
    });

    it('refuses a bad position, limit or retention', async () => {
      const { log } = await fresh();
      await expect(log.after(0, -1)).rejects.toThrow(RangeError);
      await expect(log.after(0.5, 1)).rejects.toThrow(RangeError);
      await expect(log.trim(-1)).rejects.toThrow(RangeError);
    });

    it('keeps its events, seqs and id across a reopen; another database has another id', async () => {
      const harness = await fresh();
      const seqs = await Promise.all([1, 2, 3].map((n) => harness.log.append(event(n))));
      await harness.log.trim(2);
      const reopened = await harness.reopen();
      expect(reopened.logId).toBe(harness.log.logId);
      expect(await reopened.after(seqs[1], 10)).toMatchObject({
        events: [{ seq: seqs[2], ...event(3) }],
        oldest: seqs[1],
        newest: seqs[2],
      });
      expect(await reopened.append(event(4))).toBeGreaterThan(seqs[2]);
      const other = await fresh();
      expect(other.log.logId).not.toBe(harness.log.logId);
    });
  });
}
