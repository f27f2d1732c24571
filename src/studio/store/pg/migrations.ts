// The PostgreSQL schema's migrations, applied in order on open (store/pg/database.ts); the table
// svc_migrations records which are applied. Never edit a shipped entry: append a new one.

export interface PgMigration {
  /** What it makes, for the record and for an error. */
  readonly name: string;
  readonly sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    // store/pg/events.ts: the one row of event_log names the log and holds the newest position given.
    name: 'event log: events and their counter',
    sql: `
      CREATE TABLE event_log (
        only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
        log_id TEXT NOT NULL,
        last BIGINT NOT NULL
      );
      INSERT INTO event_log (log_id, last) VALUES (substr(replace(gen_random_uuid()::text, '-', ''), 1, 10), 0);
      CREATE TABLE events (seq BIGINT PRIMARY KEY, data TEXT NOT NULL, payload_id TEXT);
    `,
  },
];
