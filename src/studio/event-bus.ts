import { EVENT_CHANNEL_DEFAULTS, EventChannel } from '../common/events/channel.js';
import type { ChannelEvent, EventChannelOptions, HeldEvents, PublishOptions, ReplayCopy, ReplayStore } from '../common/events/types.js';
import type { EventLog, EventLogPage, NewLoggedEvent } from './store/repositories.js';

// The studio's events: the event channel (common/events/channel.ts) with its replay copies in the
// database's event log instead of memory, so a cursor stays valid across restarts (and, with a
// shared database, across instances). Producers and in-process consumers see it as the EventBus
// port (`ctx.events`); the HTTP side (`/api/events`, a request's own stream) as the channel.

const rowOf = (copy: ReplayCopy): NewLoggedEvent =>
  copy.payloadId === undefined ? { data: copy.json } : { data: copy.json, payloadId: copy.payloadId };

/**
 * Retention: the newest `keep` events (the channel's `replaySize`, 1000 by default). A read trims
 * to exactly those first: an older cursor gets a `replay_gap` (`evicted`). Between reads the rows
 * beyond are deleted in batches of an eighth of `keep`, so a publish rarely pays for a trim and the
 * table never holds more than `keep` plus a batch.
 */
export class LogReplayStore implements ReplayStore {
  readonly prefix: string;
  readonly dense: boolean;
  lastSeq = 0;
  private readonly trimEvery: number;
  private sinceTrim = 0;

  constructor(
    private readonly log: EventLog,
    private readonly keep: number,
    private readonly onError: (error: unknown) => void = (error) => console.error('event log: a trim failed:', error),
  ) {
    this.prefix = log.logId;
    this.dense = log.dense;
    this.trimEvery = Math.max(1, Math.ceil(keep / 8));
    // What is already there (an earlier run's events): a request's own last word names the newest as its cursor.
    void log.after(0, 0).then((page) => this.saw(page), onError);
  }

  push(copy: ReplayCopy): number {
    const seq = this.log.append(rowOf(copy));
    this.lastSeq = Math.max(this.lastSeq, seq);
    this.sinceTrim += 1;
    if (this.sinceTrim >= this.trimEvery) {
      this.sinceTrim = 0;
      this.log.trim(this.keep).catch(this.onError);
    }
    return seq;
  }

  async read(afterSeq: number | undefined): Promise<HeldEvents> {
    // Trimmed first, the log holds exactly the window: the newest `keep` events.
    await this.log.trim(this.keep);
    // A cursor inside the window (a reconnect) takes one read; any other first learns the window, then reads it.
    let page = await this.log.after(afterSeq ?? Number.MAX_SAFE_INTEGER, this.keep);
    let oldestSeq = page.oldest ?? page.newest + 1;
    if (afterSeq === undefined || afterSeq < oldestSeq - 1 || afterSeq > page.newest) {
      page = await this.log.after(oldestSeq - 1, this.keep);
      oldestSeq = page.oldest ?? page.newest + 1;
    }
    this.saw(page);
    return {
      oldestSeq,
      lastSeq: page.newest,
      copies: page.events.map(({ seq, data, payloadId }) => ({
        seq,
        copy: payloadId === undefined ? { json: data } : { json: data, payloadId },
      })),
    };
  }

  private saw(page: EventLogPage): void {
    this.lastSeq = Math.max(this.lastSeq, page.newest);
  }
}

/** The studio's event channel over its event log; `options.replaySize` is the retention (events kept). */
export function studioEventChannel(log: EventLog, options: EventChannelOptions = {}): EventChannel {
  const keep = options.replaySize ?? EVENT_CHANNEL_DEFAULTS.replaySize;
  return new EventChannel({ ...options, store: new LogReplayStore(log, keep) });
}

/** An event of the outbox: its row, and what to call once the transaction that appended it has committed. */
export interface OutboxEvent {
  /** The row to append inside the store's transaction (`SqliteEventLog.appendInTransaction(row)`, the bus's own log), which answers its seq. */
  readonly row: NewLoggedEvent;
  /** Sends the event live (connections, listeners) with the id of its row; once, after the commit. Answers the event. */
  published(seq: number): ChannelEvent;
}

/**
 * The outbox: an event written by a store transaction together with its row change (a job's end and
 * its terminal event), so neither lands without the other. `prepare` serializes it as publish would
 * (transient fields left out of the row); the transaction appends `row`; once it has committed,
 * `published(seq)` sends it live. A transaction that rolls back appends nothing and nothing is sent.
 * Call `published` in the same synchronous step as the commit where it can be: across an await, an
 * event published meanwhile goes live first, and a client that saw that one and then this one
 * resumes from this one's (lower) id and gets the other again.
 */
export interface EventOutbox {
  prepare(topic: string, event: string, fields?: Record<string, unknown>, options?: PublishOptions): OutboxEvent;
}

export const eventOutbox = (channel: EventChannel): EventOutbox => ({
  prepare(topic, event, fields, options) {
    const prepared = channel.prepare(topic, event, fields, options);
    return { row: rowOf(prepared.copy), published: (seq) => prepared.deliver(seq) };
  },
});
