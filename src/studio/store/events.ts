import type { StudioDatabase } from './database.js';
import { statementsOf } from './database.js';
import type { EventLog, EventLogPage, LoggedEvent, NewLoggedEvent } from './repositories.js';

// The event log's table (migration 14): the SQLite implementation of the EventLog port. Appends are
// one prepared INSERT each (the publish path is hot: no transaction of our own, no read back);
// seq is the row's AUTOINCREMENT key, so it is dense, in commit order across every process
// sharing the file, and never reused once trimmed.

interface EventRow {
  seq: number;
  data: string;
  payload_id: string | null;
}

const prepared = statementsOf((db) => {
  const statements = {
    append: db.prepare<[string, string | null]>('INSERT INTO events (data, payload_id) VALUES (?, ?)'),
    after: db.prepare<[number, number], EventRow>('SELECT seq, data, payload_id FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
    oldest: db.prepare<[], number | null>('SELECT min(seq) FROM events').pluck(),
    // The sequence outlives the rows: once every row is trimmed, the newest seq is still known.
    newest: db.prepare<[], number | null>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck(),
    trim: db.prepare<[number]>('DELETE FROM events WHERE seq <= (SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?)'),
    logId: db.prepare<[], string>("SELECT value FROM meta WHERE key = 'event_log_id'").pluck(),
  };
  // One read transaction: the page and its bounds are of one moment, whoever appends or trims meanwhile.
  const page = db.transaction((seq: number, limit: number): EventLogPage => {
    const events = statements.after
      .all(seq, limit)
      .map((row): LoggedEvent =>
        row.payload_id === null ? { seq: row.seq, data: row.data } : { seq: row.seq, data: row.data, payloadId: row.payload_id },
      );
    return { events, oldest: statements.oldest.get() ?? undefined, newest: statements.newest.get() ?? 0 };
  });
  return { ...statements, page };
});

/** Appends an event on `db` (inside the caller's transaction when there is one) and answers its seq. */
export function appendEvent(db: StudioDatabase, event: NewLoggedEvent): number {
  return Number(prepared(db).append.run(event.data, event.payloadId ?? null).lastInsertRowid);
}

export class SqliteEventLog implements EventLog {
  readonly logId: string;
  readonly dense = true;

  constructor(private readonly db: StudioDatabase) {
    const logId = prepared(db).logId.get();
    if (logId === undefined) throw new Error('The studio database has no event log id (migration 14 missing).');
    this.logId = logId;
  }

  append(event: NewLoggedEvent): number {
    return appendEvent(this.db, event);
  }

  async after(seq: number, limit: number): Promise<EventLogPage> {
    if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError('after(seq, limit) takes integers, limit >= 0.');
    return prepared(this.db).page(seq, limit);
  }

  async trim(keep: number): Promise<number> {
    if (!Number.isSafeInteger(keep) || keep < 0) throw new RangeError('trim(keep) takes an integer >= 0.');
    return prepared(this.db).trim.run(keep).changes;
  }
}
