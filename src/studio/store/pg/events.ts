import type pg from 'pg';
import type { CommittedEventLog, EventLogFollowing, EventLogPage, LoggedEvent, NewLoggedEvent } from '../repositories.js';
import type { PgDatabase } from './database.js';

// The event log in PostgreSQL (team mode): the EventLog port for studios sharing one database.
// Positions are given at commit, in commit order: an append takes its seqs from the one row of
// `event_log`, updated in the same statement as the INSERT, so the row lock serialises appenders
// and a transaction is visible before the next one can take a seq. A reader that has seen
// position P has therefore seen every position below it, whichever studio wrote it, and positions
// never skip (a failed statement rolls its seqs back): `Last-Event-ID` resumes on any instance
// with nothing missed, and a gap notice counts what was trimmed.
//
// Appends of one turn of the event loop are one statement, which also NOTIFYs `studio_events`
// with the newest position (sent at commit). Every studio LISTENs on a connection of its own and
// reads the log from the last position it delivered: its followers get every studio's events in
// position order, its own included. This process's statements run one at a time (a flush, then a
// read of the tail, ...), so its appends commit in the order they were made and an append has
// settled before its event is read back.

/** The NOTIFY channel: its payload is the newest position committed. */
export const EVENTS_CHANNEL = 'studio_events';

/** Events read at once while following (a follower far behind takes several reads). */
const FOLLOW_PAGE = 1000;

/** Wait before a lost LISTEN connection is opened again. */
const RECONNECT_MS = 1000;

// One statement: the seqs, the rows and the notice commit together, in the order of the counter's lock.
const APPEND = `
  WITH counter AS (UPDATE event_log SET last = last + cardinality($1::text[]) RETURNING last),
  written AS (
    INSERT INTO events (seq, data, payload_id)
    SELECT counter.last - cardinality($1::text[]) + e.ord, e.data, e.payload_id
    FROM counter, unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(data, payload_id, ord)
  )
  SELECT last, pg_notify('${EVENTS_CHANNEL}', last::text) FROM counter`;

// One statement, so one snapshot: the page and its bounds are of one moment.
const PAGE = `
  WITH page AS (SELECT seq, data, payload_id FROM events WHERE seq > $1 ORDER BY seq LIMIT $2)
  SELECT (SELECT last FROM event_log) AS newest, (SELECT min(seq) FROM events) AS oldest,
    ARRAY(SELECT seq::text FROM page ORDER BY page.seq) AS seqs,
    ARRAY(SELECT data FROM page ORDER BY page.seq) AS data,
    ARRAY(SELECT payload_id FROM page ORDER BY page.seq) AS payload_ids`;

const TRIM = 'DELETE FROM events WHERE seq <= (SELECT seq FROM events ORDER BY seq DESC OFFSET $1 LIMIT 1)';

interface PageRow {
  newest: number;
  oldest: number | null;
  seqs: string[];
  data: string[];
  payload_ids: Array<string | null>;
}

interface Pending {
  readonly row: NewLoggedEvent;
  resolve(seq: number): void;
  reject(error: unknown): void;
}

interface Follower {
  readonly onEvents: (events: readonly LoggedEvent[]) => void;
  readonly onLost: (count: number) => void;
  readonly started: (position: number) => void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class PgEventLog implements CommittedEventLog {
  readonly positions = 'at-commit';
  readonly dense = true;
  private queued: Pending[] = [];
  private flushing: NodeJS.Immediate | undefined;
  /** This process's statements on the log, one at a time: flushes and reads of the tail. */
  private serial: Promise<void> = Promise.resolve();
  private follower: Follower | undefined;
  private listener: pg.Client | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  /** The newest position passed to the follower (set first to the newest committed when following starts), and the newest known committed. */
  private delivered = 0;
  private wanted = 0;
  private started = false;
  private reading = false;
  private retryRead: NodeJS.Timeout | undefined;
  /** This studio's events committed past a position not yet read: sent from here if a trim takes their rows first. */
  private readonly mine = new Map<number, LoggedEvent>();

  private constructor(
    private readonly db: PgDatabase,
    readonly logId: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The log of this database (its schema made first). */
  static async open(
    db: PgDatabase,
    onError: (error: unknown) => void = (error) => console.error('event log:', error),
  ): Promise<PgEventLog> {
    const [row] = await db.query<{ log_id: string }>('SELECT log_id FROM event_log');
    if (!row) throw new Error('The studio database has no event log (its migration is missing).');
    return new PgEventLog(db, row.log_id, onError);
  }

  append(event: NewLoggedEvent): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queued.push({ row: event, resolve, reject });
      this.flushing ??= setImmediate(() => void this.flush());
    });
  }

  async after(seq: number, limit: number): Promise<EventLogPage> {
    if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError('after(seq, limit) takes integers, limit >= 0.');
    await this.flush();
    return this.page(seq, limit);
  }

  async trim(keep: number): Promise<number> {
    if (!Number.isSafeInteger(keep) || keep < 0) throw new RangeError('trim(keep) takes an integer >= 0.');
    await this.flush();
    await this.db.ready;
    // Safe with several studios trimming: each deletes only rows older than the newest `keep` it saw.
    return (await this.db.pool.query(TRIM, [keep])).rowCount ?? 0;
  }

  follow(onEvents: (events: readonly LoggedEvent[]) => void, onLost: (count: number) => void): EventLogFollowing {
    if (this.follower) throw new Error('The event log has a follower already.');
    let started!: (position: number) => void;
    const startedAt = new Promise<number>((resolve) => (started = resolve));
    const follower: Follower = { onEvents, onLost, started };
    this.follower = follower;
    this.started = false;
    // Started in turn with the flushes: appends made from here on are past the position it starts at.
    this.run(() => this.listen(follower));
    return {
      started: startedAt,
      stop: () => {
        if (this.follower === follower) this.unfollow();
      },
    };
  }

  /**
   * The outbox (studio/event-bus.ts) inside the caller's open transaction (on `client`): appends an
   * event with its row change; answers its seq. It goes live from the tail once committed (the
   * NOTIFY is sent at commit), as another studio's would. The counter's row stays locked until
   * that transaction ends, so keep the transaction short. Events this process published before
   * and not yet written get later positions: prefer appendWith where that order matters.
   */
  async appendInTransaction(client: pg.ClientBase, event: NewLoggedEvent): Promise<number> {
    const { rows } = await client.query<{ last: number }>(APPEND, [[event.data], [event.payloadId ?? null]]);
    return Number(rows[0].last);
  }

  /**
   * The outbox in one statement: `change` (an UPDATE or DELETE, without RETURNING, on parameters
   * `values`) and, when it changed a row, `event` appended; in turn with this process's appends, so
   * every event published here before it has an earlier position. Answers the event's seq, or
   * undefined when the change matched nothing (then nothing is appended). One round trip, atomic:
   * the change and its event commit together or not at all.
   */
  appendWith(change: string, values: readonly unknown[], event: NewLoggedEvent): Promise<number | undefined> {
    const data = values.length + 1;
    const text = `
      WITH changed AS (${change} RETURNING 1),
      counter AS (UPDATE event_log SET last = last + 1 WHERE EXISTS (SELECT 1 FROM changed) RETURNING last),
      written AS (INSERT INTO events (seq, data, payload_id) SELECT last, $${data}::text, $${data + 1}::text FROM counter)
      SELECT last, pg_notify('${EVENTS_CHANNEL}', last::text) FROM counter`;
    void this.flush();
    return new Promise((resolve, reject) => {
      this.run(async () => {
        let seq: number | undefined;
        try {
          const [row] = await this.db.query<{ last: number }>(text, [...values, event.data, event.payloadId ?? null]);
          seq = row?.last;
        } catch (error) {
          reject(error);
          return;
        }
        resolve(seq);
        if (seq !== undefined) await this.wrote([{ seq, ...event }]);
      });
    });
  }

  /** Writes what is pending and stops following; reads and appends still work. */
  async close(): Promise<void> {
    this.unfollow();
    await this.flush();
  }

  private unfollow(): void {
    this.follower?.started(0);
    this.follower = undefined;
    this.started = false;
    this.mine.clear();
    this.unlisten();
  }

  /** Writes the rows queued now, after this process's earlier statements; settles when they are committed or failed. */
  private flush(): Promise<void> {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.queued.length === 0) return this.serial;
    const batch = this.queued;
    this.queued = [];
    return this.run(() => this.write(batch));
  }

  private run(step: () => Promise<void>): Promise<void> {
    const done = this.serial.then(step).catch(this.onError);
    this.serial = done;
    return done;
  }

  private async write(batch: readonly Pending[]): Promise<void> {
    let last: number;
    try {
      const [row] = await this.db.query<{ last: number }>(APPEND, [
        batch.map((each) => each.row.data),
        batch.map((each) => each.row.payloadId ?? null),
      ]);
      last = row.last;
    } catch (error) {
      for (const each of batch) each.reject(error);
      return;
    }
    const first = last - batch.length + 1;
    batch.forEach((each, index) => each.resolve(first + index));
    await this.wrote(batch.map(({ row }, index): LoggedEvent => ({ seq: first + index, ...row })));
  }

  /** Rows this process has just committed, at consecutive positions: passed to the follower (after the appenders' reactions). */
  private async wrote(rows: readonly LoggedEvent[]): Promise<void> {
    await nextTurn();
    if (!this.follower || !this.started) return;
    const first = rows[0].seq;
    const last = rows[rows.length - 1].seq;
    if (first === this.delivered + 1) {
      // Nobody committed in between: the rows are known here, no read needed (a notice of them is then nothing new).
      this.delivered = last;
      this.follower.onEvents(rows);
    } else {
      // Kept until the tail reaches them: a trim meanwhile cannot take this studio's own events from it.
      for (const row of rows) this.mine.set(row.seq, row);
    }
    this.want(last, true);
  }

  private async page(seq: number, limit: number): Promise<EventLogPage> {
    const [row] = await this.db.query<PageRow>(PAGE, [seq, limit]);
    return {
      events: row.seqs.map((each, index): LoggedEvent => {
        const payloadId = row.payload_ids[index];
        return payloadId === null ? { seq: Number(each), data: row.data[index] } : { seq: Number(each), data: row.data[index], payloadId };
      }),
      oldest: row.oldest ?? undefined,
      newest: row.newest,
    };
  }

  /** Connects the LISTEN connection and starts after the newest position committed. */
  private async listen(follower: Follower): Promise<void> {
    if (this.follower !== follower) return;
    let client: pg.Client;
    try {
      client = await this.db.connect();
      client.on('notification', (message) => {
        if (message.channel === EVENTS_CHANNEL && this.listener === client) this.want(Number(message.payload));
      });
      client.on('end', () => {
        if (this.listener !== client) return;
        this.listener = undefined;
        this.retryListen(follower);
      });
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      this.onError(error);
      this.retryListen(follower);
      return;
    }
    if (this.follower !== follower) {
      void client.end();
      return;
    }
    this.listener = client;
    let last: number;
    try {
      [{ last }] = await this.db.query<{ last: number }>('SELECT last FROM event_log');
    } catch (error) {
      this.onError(error);
      this.unlisten();
      this.retryListen(follower);
      return;
    }
    // The first start begins at the newest committed (a notice that came meanwhile may be past it);
    // a reconnect reads what was committed while it was away.
    if (!this.started) {
      this.started = true;
      this.delivered = last;
      follower.started(last);
    }
    this.want(last, true);
  }

  private retryListen(follower: Follower): void {
    if (this.follower !== follower || this.reconnect) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = undefined;
      this.run(() => this.listen(follower));
    }, RECONNECT_MS);
    this.reconnect.unref();
  }

  private unlisten(): void {
    if (this.reconnect) clearTimeout(this.reconnect);
    if (this.retryRead) clearTimeout(this.retryRead);
    this.reconnect = this.retryRead = undefined;
    const client = this.listener;
    this.listener = undefined;
    if (client) void client.end().catch(() => {});
  }

  /** Position `seq` is committed: read up to it, in turn with the flushes (once following has started). */
  private want(seq: number, force = false): void {
    if (seq <= this.wanted && !force) return;
    this.wanted = Math.max(this.wanted, seq);
    if (!this.started || this.reading || this.delivered >= this.wanted) return;
    this.reading = true;
    this.run(() => this.readTail());
  }

  private async readTail(): Promise<void> {
    try {
      while (this.follower && this.delivered < this.wanted) {
        const page = await this.page(this.delivered, FOLLOW_PAGE);
        const follower = this.follower;
        if (!follower) return;
        this.wanted = Math.max(this.wanted, page.newest);
        const first = page.events[0]?.seq ?? page.newest + 1;
        // Positions trimmed before this studio read them (it fell more than the retention behind): its own it still has.
        const kept = [...this.mine.values()].filter((row) => row.seq > this.delivered && row.seq < first).sort((x, y) => x.seq - y.seq);
        const lost = first - this.delivered - 1 - kept.length;
        if (lost > 0) follower.onLost(lost);
        this.delivered = page.events.at(-1)?.seq ?? page.newest;
        for (const seq of this.mine.keys()) if (seq <= this.delivered) this.mine.delete(seq);
        const events = kept.length > 0 ? [...kept, ...page.events] : page.events;
        if (events.length > 0) follower.onEvents(events);
      }
    } catch (error) {
      // Read again a little later (a notice may never come if nothing more is published).
      this.onError(error);
      this.retryRead ??= setTimeout(() => {
        this.retryRead = undefined;
        this.want(this.wanted, true);
      }, RECONNECT_MS).unref();
    } finally {
      this.reading = false;
    }
  }
}
