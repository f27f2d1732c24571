// The PostgreSQL schema's migrations, applied in order on open (store/pg/database.ts); the table
// svc_migrations records which are applied. Never edit a shipped entry: append a new one.

export interface PgMigration {
  /** What it makes, for the record and for an error. */
  readonly name: string;
  readonly sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  // The job engine's queue (store/pg/jobs.ts): the SQLite jobs table as of its migration 14, with
  // seq an identity column (the order jobs were accepted in: FIFO within a priority) where SQLite
  // has its rowid. The partial indexes follow the claim and the heartbeat: the queue (queued, in
  // claim order), the slots (running or waiting with a lease: counted per pool, renewed per
  // owner), the parked jobs (by when they are due), running rows with no owner (orphans), the
  // unfinished jobs of each ordering key (FIFO), the ended ones (the retention sweep and
  // finishedSince), and the attempts of a retried job. job_inputs names the input files each job holds.
  {
    name: 'jobs',
    sql: `CREATE TABLE jobs (
      seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      lane TEXT,
      model TEXT,
      state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'interrupted')),
      phase TEXT,
      priority INTEGER NOT NULL DEFAULT 0,
      ordering_key TEXT,
      pool TEXT NOT NULL,
      pool_limit INTEGER,
      budget_ms BIGINT,
      reaches_at_start INTEGER NOT NULL DEFAULT 0,
      polls INTEGER NOT NULL DEFAULT 0,
      fingerprint TEXT,
      attempt INTEGER NOT NULL DEFAULT 1,
      retry_of TEXT,
      lease_owner TEXT,
      lease_expires_at BIGINT,
      deadline_at BIGINT,
      next_check_at BIGINT,
      reached_upstream INTEGER NOT NULL DEFAULT 0,
      operation TEXT,
      upstream_operation_id TEXT,
      upstream_state TEXT,
      cancel_requested INTEGER NOT NULL DEFAULT 0,
      cancel_confirmed INTEGER,
      request TEXT NOT NULL,
      result TEXT,
      error TEXT,
      created_at TEXT NOT NULL,
      started_at TEXT,
      updated_at TEXT NOT NULL,
      finished_at TEXT
    );
    CREATE INDEX jobs_queue ON jobs (priority DESC, seq) WHERE state = 'queued';
    CREATE INDEX jobs_slots ON jobs (lease_owner, pool) WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL;
    CREATE INDEX jobs_parked ON jobs (next_check_at) WHERE state = 'waiting' AND lease_owner IS NULL;
    CREATE INDEX jobs_ownerless ON jobs (id) WHERE state = 'running' AND lease_owner IS NULL;
    CREATE INDEX jobs_ordering ON jobs (ordering_key, seq) WHERE finished_at IS NULL AND ordering_key IS NOT NULL;
    CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
    CREATE INDEX jobs_attempts ON jobs (retry_of) WHERE retry_of IS NOT NULL;
    CREATE TABLE job_inputs (
      job_id TEXT NOT NULL,
      hash TEXT NOT NULL,
      PRIMARY KEY (job_id, hash)
    );
    CREATE INDEX job_inputs_hash ON job_inputs (hash);`,
  },
];
