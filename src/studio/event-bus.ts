import { EVENT_CHANNEL_DEFAULTS, EventChannel } from '../common/events/channel.js';
import type { PreparedEvent } from '../common/events/channel.js';
import type {
  ChannelEvent,
  EventBus,
  EventChannelOptions,
  HeldEvents,
  InternalListener,
  PublishOptions,
  ReplayCopy,
  ReplayStore,
} from '../common/events/types.js';
import type { CommittedEventLog, EventLog, EventLogPage, ImmediateEventLog, LoggedEvent, NewLoggedEvent } from './store/repositories.js';

// The studio's events: the event channel (common/events/channel.ts) with its replay copies in the
// database's event log instead of memory, so a cursor stays valid across restarts (and, with a
// shared database, across instances). Producers and in-process consumers see it as the EventBus
// port (`ctx.events`); the HTTP side (`/api/events`, a request's own stream) as the channel.
// Over a log that gives positions at once (SQLite) the channel is the bus: publish answers the id
// and the fan-out follows in the same step. Over a log shared by several studios (PostgreSQL),
// positions are given at commit: the bus hands the event to the log, and every studio sends the
// log's events live as it reads them, in position order (CommittedEventBus).

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
  private readonly log: ImmediateEventLog;
  private readonly trimEvery: number;
  private sinceTrim = 0;

  constructor(
    log: EventLog,
    private readonly keep: number,
    private readonly onError: (error: unknown) => void = (error) => console.error('event log: a trim failed:', error),
  ) {
    if (log.positions === 'at-commit') throw new Error('A log that gives positions at commit goes live through CommittedEventBus.');
    this.log = log;
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

  /** An event kept at `seq` by a store transaction (the outbox): it is the newest now. */
  kept(seq: number): void {
    this.lastSeq = Math.max(this.lastSeq, seq);
  }

  async read(afterSeq: number | undefined): Promise<HeldEvents> {
    const held = await readWindow(this.log, this.keep, afterSeq);
    this.lastSeq = Math.max(this.lastSeq, held.lastSeq);
    return held;
  }

  private saw(page: EventLogPage): void {
    this.lastSeq = Math.max(this.lastSeq, page.newest);
  }
}

const copyOf = (data: string, payloadId: string | undefined): ReplayCopy =>
  payloadId === undefined ? { json: data } : { json: data, payloadId };

/** The window held (the newest `keep` events) and the copies after `afterSeq` (all held when it is undefined or outside). */
async function readWindow(log: EventLog, keep: number, afterSeq: number | undefined): Promise<HeldEvents> {
  // Trimmed first, the log holds exactly the window: the newest `keep` events.
  await log.trim(keep);
  // A cursor inside the window (a reconnect) takes one read; any other first learns the window, then reads it.
  let page = await log.after(afterSeq ?? Number.MAX_SAFE_INTEGER, keep);
  let oldestSeq = page.oldest ?? page.newest + 1;
  if (afterSeq === undefined || afterSeq < oldestSeq - 1 || afterSeq > page.newest) {
    page = await log.after(oldestSeq - 1, keep);
    oldestSeq = page.oldest ?? page.newest + 1;
  }
  return {
    oldestSeq,
    lastSeq: page.newest,
    copies: page.events.map(({ seq, data, payloadId }) => ({ seq, copy: copyOf(data, payloadId) })),
  };
}

/**
 * The studio's event channel over a log that gives positions at once (throws for one that gives
 * them at commit: see studioEvents); `options.replaySize` is the retention (events kept).
 */
export function studioEventChannel(log: EventLog, options: EventChannelOptions = {}): EventChannel {
  return immediateEvents(log, options).channel;
}

/** The channel over a log that gives positions at once, and its outbox. */
function immediateEvents(log: EventLog, options: EventChannelOptions): { channel: EventChannel; outbox: EventOutbox } {
  const store = new LogReplayStore(log, options.replaySize ?? EVENT_CHANNEL_DEFAULTS.replaySize);
  const channel = new EventChannel({ ...options, store });
  const outbox: EventOutbox = {
    prepare(topic, event, fields, publishOptions) {
      const prepared = channel.prepare(topic, event, fields, publishOptions);
      return {
        row: rowOf(prepared.copy),
        published: (seq) => {
          store.kept(seq);
          prepared.deliver(seq);
        },
      };
    },
  };
  return { channel, outbox };
}

/** The studio's events over its log: the port (`ctx.events`), its outbox (`ctx.outbox`) and the channel serving it (`ctx.channel`). */
export interface StudioEvents {
  readonly bus: EventBus;
  readonly outbox: EventOutbox;
  readonly channel: EventChannel;
  /** Settles once events committed by any studio go live here (at once over SQLite); await it before serving. */
  readonly ready: Promise<void>;
  /** Ends the connections and stops following the log (then close the log: it writes what is pending). */
  close(): void;
}

/** The bus and channel for `log`: the channel itself over SQLite, a CommittedEventBus over a shared log. */
export function studioEvents(log: EventLog, options: EventChannelOptions = {}): StudioEvents {
  if (log.positions === 'at-commit') {
    const bus = new CommittedEventBus(log, options);
    return { bus, outbox: bus, channel: bus.channel, ready: bus.ready, close: () => bus.close() };
  }
  const { channel, outbox } = immediateEvents(log, options);
  return { bus: channel, outbox, channel, ready: Promise.resolve(), close: () => channel.close() };
}

/**
 * The replay side of a CommittedEventBus: reads as LogReplayStore's; `lastSeq` is the newest
 * position the bus has sent live (its subscribers' and sendEnded's cursor), never a publish's.
 */
class FollowedLogStore implements ReplayStore {
  readonly prefix: string;
  readonly dense: boolean;
  readonly liveFromTail = true;
  lastSeq = 0;

  constructor(
    private readonly log: CommittedEventLog,
    private readonly keep: number,
  ) {
    this.prefix = log.logId;
    this.dense = log.dense;
  }

  push(): number {
    throw new Error('A shared event log gives positions at commit: publish through CommittedEventBus.');
  }

  read(afterSeq: number | undefined): Promise<HeldEvents> {
    return readWindow(this.log, this.keep, afterSeq);
  }
}

/** An event this studio published, committed at its seq and not yet sent live. */
interface OwnEvent {
  readonly prepared: PreparedEvent;
  /** Its number among this bus's publishes (counted from 1). */
  readonly number: number;
}

/**
 * The studio's bus over a log shared by several studios (PostgreSQL). `publish` serializes the
 * event and hands its copy to the log (one statement per turn of the event loop); the log gives it
 * its position at commit. Every event goes live from the log's tail, in position order, this
 * studio's own included: so every instance sends the same ids in the same order, and a cursor
 * from one resumes on any other. This studio's events go live whole (transient fields too);
 * another's as its replay copy (transient fields left out and named in `omitted`, as in a replay):
 * the partial images of a job run elsewhere stay there. A subscriber gets the events sent live
 * after it subscribed, except this studio's published before (as the channel's subscribers).
 * `publish` answers nothing: the id is known at commit.
 */
export class CommittedEventBus implements EventBus, EventOutbox {
  readonly channel: EventChannel;
  /** Settles once the bus follows the log: events committed from then on, by any studio, go live here. */
  readonly ready: Promise<void>;
  private readonly store: FollowedLogStore;
  private readonly own = new Map<number, OwnEvent>();
  private readonly stopFollowing: () => void;
  private readonly trimEvery: number;
  private readonly keep: number;
  private sinceTrim = 0;
  private published = 0;
  /** The number of this studio's event being sent live, while it is. */
  private sending: number | undefined;

  constructor(
    private readonly log: CommittedEventLog,
    options: EventChannelOptions = {},
    private readonly onError: (error: unknown) => void = (error) => console.error('event bus:', error),
  ) {
    this.keep = options.replaySize ?? EVENT_CHANNEL_DEFAULTS.replaySize;
    this.trimEvery = Math.max(1, Math.ceil(this.keep / 8));
    this.store = new FollowedLogStore(log, this.keep);
    this.channel = new EventChannel({ ...options, store: this.store });
    const following = log.follow(
      (events) => this.send(events),
      (count) => this.lost(count),
    );
    this.stopFollowing = following.stop;
    // Until an event goes live, a request's own last word names the position following started after.
    this.ready = following.started.then((position) => {
      this.store.lastSeq = Math.max(this.store.lastSeq, position);
    });
  }

  get hasAudience(): boolean {
    return this.channel.hasAudience;
  }

  /**
   * The outbox: an event a store transaction appends with its row change. Once committed it goes
   * live from the tail as any event; `published(seq)` makes it this studio's own there (sent whole).
   * Should the tail pass it first, it goes as its replay copy (the same event but for transient fields).
   */
  prepare(topic: string, event: string, fields: Record<string, unknown> = {}, options: PublishOptions = {}): OutboxEvent {
    const prepared = this.channel.prepare(topic, event, fields, options);
    const number = ++this.published;
    return {
      row: rowOf(prepared.copy),
      published: (seq) => {
        if (seq > this.store.lastSeq) this.own.set(seq, { prepared, number });
      },
    };
  }

  publish(topic: string, event: string, fields: Record<string, unknown> = {}, options: PublishOptions = {}): void {
    const prepared = this.channel.prepare(topic, event, fields, options);
    const number = ++this.published;
    // The log settles an append before its event comes back from the tail.
    this.log.append(rowOf(prepared.copy)).then((seq) => this.own.set(seq, { prepared, number }), this.onError);
    this.sinceTrim += 1;
    if (this.sinceTrim >= this.trimEvery) {
      this.sinceTrim = 0;
      this.log.trim(this.keep).catch(this.onError);
    }
  }

  subscribe(listener: InternalListener): () => void {
    const before = this.published;
    return this.channel.subscribe((event) => {
      if (this.sending === undefined || this.sending > before) listener(event);
    });
  }

  replay(cursor: string): Promise<ChannelEvent[]> {
    return this.channel.replay(cursor);
  }

  /** Stops following the log and ends every connection. */
  close(): void {
    this.stopFollowing();
    this.own.clear();
    this.channel.close();
  }

  private send(events: readonly LoggedEvent[]): void {
    // Own events the tail went past (committed before following started) never come back.
    for (const seq of this.own.keys()) if (seq < events[0].seq) this.own.delete(seq);
    for (const { seq, data, payloadId } of events) {
      this.store.lastSeq = seq;
      const own = this.own.get(seq);
      if (!own) {
        this.channel.deliverCopy(seq, copyOf(data, payloadId));
        continue;
      }
      this.own.delete(seq);
      this.sending = own.number;
      try {
        own.prepared.deliver(seq);
      } finally {
        this.sending = undefined;
      }
    }
  }

  /** Events trimmed before this studio could send them live: its connections resume by cursor (and are told of the gap). */
  private lost(count: number): void {
    this.onError(new Error(`${count} events were trimmed before this studio could send them live; its connections resume by cursor.`));
    this.channel.dropConnections();
  }
}

/** An event of the outbox: its row, and what to call once the transaction that appended it has committed (jobs/job-store.ts EndEvent). */
export interface OutboxEvent {
  /** The row to append inside the store's transaction (`SqliteEventLog.appendInTransaction`, `PgEventLog.appendWith`), which answers its seq. */
  readonly row: NewLoggedEvent;
  /** Once, after the commit: over SQLite, sends the event live with the id of its row; over a shared log, marks it this studio's own for the tail. */
  published(seq: number): void;
}

/**
 * The outbox (`ctx.outbox`): an event written by a store transaction together with its row change
 * (a job's end and its terminal event), so neither lands without the other. `prepare` serializes
 * it as publish would (transient fields left out of the row); the transaction appends `row` after
 * every event published before it; once it has committed, `published(seq)`. A transaction that
 * rolls back appends nothing and nothing is sent. Over SQLite, call `published` in the same
 * synchronous step as the commit: across an await, an event published meanwhile goes live first,
 * and a client that saw that one and then this one resumes from this one's (lower) id and gets the
 * other again. Over a shared log every event goes live from the tail, in position order.
 */
export interface EventOutbox {
  prepare(topic: string, event: string, fields?: Record<string, unknown>, options?: PublishOptions): OutboxEvent;
}
