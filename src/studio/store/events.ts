import { isStorageFull } from '../../common/storage-full.js';
import type { StudioDatabase } from './database.js';
import { statementsOf } from './database.js';
import type { EventLogPage, ImmediateEventLog, LoggedEvent, NewLoggedEvent } from './repositories.js';

// The event log's table (migration 15): the SQLite implementation of the EventLog port. The publish
// path is hot, and a commit of its own per event costs some 50–100 µs (the WAL write, a checkpoint
// now and then), so appends are cheap in two ways:
// - seqs come from a block reserved in the database (the meta row `event_log_reserved`, moved up by
//   RESERVE in one committed UPDATE): an append takes the next seq of its block at once, in memory,
//   and no seq is ever given twice, whatever crashes (a block is never handed out again);
// - rows are written in one transaction per turn of the event loop (setImmediate), and before any
//   read of this log (a replay always sees every event published before it).
// A crash loses the rows of the turn it cut (their events had gone live; their seqs are never
// reused, so a cursor naming one still resumes after it) and leaves the rest of its block unused:
// seqs are dense within a run and skip at a crash. A clean close gives the unused rest back.

/** Seqs reserved at a time: one committed write per this many appends; at most this many positions skipped at a crash. */
export const RESERVE = 128;

interface EventRow {
  seq: number;
  data: string;
  payload_id: string | null;
}

const prepared = statementsOf((db) => {
  const statements = {
    insert: db.prepare<[number, string, string | null]>('INSERT INTO events (seq, data, payload_id) VALUES (?, ?, ?)'),
    // One statement, atomic across the processes sharing the file: the block is theirs alone.
    reserve: db
      .prepare<[number], number>(
        "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'event_log_reserved' RETURNING CAST(value AS INTEGER)",
      )
      .pluck(),
    // The rest of a block goes back only when nobody reserved after it.
    giveBack: db.prepare<[number, number]>("UPDATE meta SET value = ? WHERE key = 'event_log_reserved' AND CAST(value AS INTEGER) = ?"),
    after: db.prepare<[number, number], EventRow>('SELECT seq, data, payload_id FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
    oldest: db.prepare<[], number | null>('SELECT min(seq) FROM events').pluck(),
    newest: db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck(),
    // The sequence outlives the rows: once every row is trimmed, the newest seq is still known.
    newestEver: db.prepare<[], number | null>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck(),
    trim: db.prepare<[number]>('DELETE FROM events WHERE seq <= (SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?)'),
    logId: db.prepare<[], string>("SELECT value FROM meta WHERE key = 'event_log_id'").pluck(),
  };
  const insertAll = db.transaction((rows: readonly LoggedEvent[]) => {
    for (const row of rows) statements.insert.run(row.seq, row.data, row.payloadId ?? null);
  });
  // One read transaction: the page and its bounds are of one moment, whoever appends or trims meanwhile.
  const page = db.transaction((seq: number, limit: number): EventLogPage => {
    const events = statements.after
      .all(seq, limit)
      .map((row): LoggedEvent =>
        row.payload_id === null ? { seq: row.seq, data: row.data } : { seq: row.seq, data: row.data, payloadId: row.payload_id },
      );
    const newest = Math.max(statements.newest.get() ?? 0, statements.newestEver.get() ?? 0);
    return { events, oldest: statements.oldest.get() ?? undefined, newest };
  });
  return { ...statements, insertAll, page };
});

/** The event log of a database handle: one per handle, as its seqs come from the block this one reserved (the bus's and the job store's). */
export const eventLogOf = statementsOf((db) => new SqliteEventLog(db));

export class SqliteEventLog implements ImmediateEventLog {
  readonly positions = 'immediate';
  readonly logId: string;
  readonly dense = true;
  /** The block being used: `next` is the next seq to give, `end` the last one reserved. */
  private next = 1;
  private end = 0;
  private queued: LoggedEvent[] = [];
  private flushing: NodeJS.Immediate | undefined;

  constructor(
    private readonly db: StudioDatabase,
    private readonly onError: (error: unknown) => void = (error) => console.error('event log: events could not be written:', error),
  ) {
    const logId = prepared(db).logId.get();
    if (logId === undefined) throw new Error('The studio database has no event log id (migration 15 missing).');
    this.logId = logId;
  }

  append(event: NewLoggedEvent): number {
    const seq = this.take();
    this.queued.push({ seq, ...event });
    this.flushing ??= setImmediate(() => this.flushQuietly());
    return seq;
  }

  /**
   * The outbox (studio/event-bus.ts `EventOutbox`): appends an event inside the caller's open
   * transaction on this database, with its row change, and answers its seq. Its row is written at
   * once, after the rows still queued (they commit or roll back with the transaction; a
   * rolled-back seq is never given again): a crash after the commit loses none of the events
   * before it.
   */
  appendInTransaction(event: NewLoggedEvent): number {
    if (!this.db.inTransaction) throw new Error('appendInTransaction runs inside a transaction of the store.');
    // In a savepoint of its own: rows that cannot be written are dropped as in any flush, and the caller's change goes on.
    this.flushQuietly();
    const seq = this.take();
    prepared(this.db).insert.run(seq, event.data, event.payloadId ?? null);
    return seq;
  }

  async after(seq: number, limit: number): Promise<EventLogPage> {
    if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError('after(seq, limit) takes integers, limit >= 0.');
    this.flushQuietly();
    return prepared(this.db).page(seq, limit);
  }

  async trim(keep: number): Promise<number> {
    if (!Number.isSafeInteger(keep) || keep < 0) throw new RangeError('trim(keep) takes an integer >= 0.');
    this.flushQuietly();
    return prepared(this.db).trim.run(keep).changes;
  }

  /** Writes what is pending and gives the rest of the block back; on a full disk neither can be, and closing goes on. */
  async close(): Promise<void> {
    this.flushQuietly();
    if (this.next <= this.end) {
      try {
        prepared(this.db).giveBack.run(this.next - 1, this.end);
      } catch (error) {
        this.onError(error);
      }
      this.end = this.next - 1;
    }
  }

  private take(): number {
    if (this.next > this.end) {
      let end: number | undefined;
      try {
        end = prepared(this.db).reserve.get(RESERVE);
      } catch (error) {
        if (!isStorageFull(error)) throw error;
        // A full disk: no block can be reserved (nor any row written). The events still go live, with
        // seqs past the last block in memory only: after a restart these may be given again, so a cursor
        // among them may resume at another event (their own rows were never written).
        this.onError(error);
        this.end = this.next + RESERVE - 1;
        return this.next++;
      }
      if (end === undefined) throw new Error('The studio database has no event log sequence (migration 15 missing).');
      this.next = end - RESERVE + 1;
      this.end = end;
    }
    const seq = this.next;
    this.next += 1;
    return seq;
  }

  /** Writes the queued rows in one transaction; throws when they cannot be written (they are dropped: their events went live). */
  private flush(): void {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.queued.length === 0) return;
    const rows = this.queued;
    this.queued = [];
    prepared(this.db).insertAll(rows);
  }

  private flushQuietly(): void {
    try {
      this.flush();
    } catch (error) {
      this.onError(error);
    }
  }
}
