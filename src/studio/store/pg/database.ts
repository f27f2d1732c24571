import pg from 'pg';
import { PG_MIGRATIONS, type PgMigration } from './migrations.js';

// The studio's PostgreSQL database (team mode, SVC_DATABASE_URL): a pool of connections through
// `pg` 8, and the schema made or brought up to date on open. Opening is synchronous (the pool
// connects on first use); every query waits for the migrations, so a caller never sees an old
// schema. Times are kept as the SQLite store keeps them (ISO text, ms as BIGINT), and BIGINT reads
// back as a number (every one of ours is below 2^53: a seq, a count, a time in ms).

/** A connection, or the pool: whatever runs one statement. */
export interface PgQueryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export interface PgDatabase {
  readonly pool: pg.Pool;
  /** Settles when the schema is up to date (rejects when it cannot be made). */
  readonly ready: Promise<void>;
  /** One statement on any connection of the pool; its rows. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /** `work` inside BEGIN … COMMIT on one connection (ROLLBACK when it throws); its answer. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** A connection of its own, outside the pool (LISTEN needs one that stays); the caller ends it. */
  connect(): Promise<pg.Client>;
  close(): Promise<void>;
}

const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Takes a lock no other studio can hold at once (the migrations run under it: two starting together apply them once). */
const MIGRATION_LOCK = 0x5376_6301;

async function migrate(client: pg.ClientBase, migrations: readonly PgMigration[]): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS svc_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = new Set((await client.query<{ id: number }>('SELECT id FROM svc_migrations')).rows.map((row) => row.id));
    for (const [index, migration] of migrations.entries()) {
      const id = index + 1;
      if (applied.has(id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO svc_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
          id,
          migration.name,
          new Date().toISOString(),
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`PostgreSQL migration ${id} (${migration.name}) failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}

export function openPgDatabase(
  url: string,
  options: { readonly max?: number; readonly migrations?: readonly PgMigration[] } = {},
): PgDatabase {
  // A process that stalls inside a transaction (holding rows other studios write) is cut off after a
  // minute rather than blocking them until its connection dies. Every transaction is READ COMMITTED,
  // whatever the server's default: a statement sees what committed before it began (the claim lock's
  // functions need it, store/pg/jobs.ts; a conditional UPDATE re-reads a row another writer changed).
  const settings = '-c idle_in_transaction_session_timeout=60000 -c default_transaction_isolation=read\\ committed';
  const config = { connectionString: url, types, application_name: 'svc-studio', options: settings };
  const pool = new pg.Pool({ ...config, max: options.max ?? 10, idleTimeoutMillis: 30_000 });
  // An idle connection that the server drops must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const migrations = options.migrations ?? PG_MIGRATIONS;
  // A second pool on a database already made (the event log's) has nothing to make: no connection, no lock.
  const ready = (async () => {
    if (migrations.length === 0) return;
    const client = await pool.connect();
    try {
      await migrate(client, migrations);
    } finally {
      client.release();
    }
  })();
  ready.catch(() => {}); // reported by the queries that wait for it
  return {
    pool,
    ready,
    async query(text, values) {
      await ready;
      return (await pool.query(text, values as unknown[])).rows;
    },
    async transaction(work) {
      await ready;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const answer = await work(client);
        await client.query('COMMIT');
        return answer;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async connect() {
      await ready;
      const client = new pg.Client(config);
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    async close() {
      await ready.catch(() => {});
      await pool.end();
    },
  };
}
