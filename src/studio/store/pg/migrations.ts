// The PostgreSQL schema's migrations, applied in order on open (store/pg/database.ts); the table
// svc_migrations records which are applied. Never edit a shipped entry: append a new one.

export interface PgMigration {
  /** What it makes, for the record and for an error. */
  readonly name: string;
  readonly sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  // The studio's records (store/pg/repositories.ts), as the SQLite schema keeps them (store/migrations.ts): times are
  // ISO text, ordered and compared as bytes (COLLATE "C", whatever the database's locale). What differs: assets hold
  // their search keys (store/pg/search.ts: word prefixes under a GIN index, folded in JS) instead of an FTS table;
  // sessions hold their graph's node and edge counts (lists never parse a graph); asset_groups is kept by one
  // PL/pgSQL trigger doing what migration 8's triggers do in SQLite.
  {
    name: 'repositories',
    sql: `
CREATE TABLE assets (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  filename TEXT COLLATE "C" NOT NULL UNIQUE,
  thumbnail TEXT COLLATE "C" NOT NULL UNIQUE,
  format TEXT NOT NULL CHECK (format IN ('png', 'jpeg', 'webp', 'svg', 'mp4')),
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  bytes BIGINT NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  prompt TEXT NOT NULL,
  lane TEXT NOT NULL,
  model TEXT NOT NULL,
  request_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  session_title TEXT COLLATE "C",
  revised_prompt TEXT,
  settings TEXT NOT NULL DEFAULT '{}',
  deleted_at TEXT COLLATE "C",
  thumbnail_state TEXT NOT NULL DEFAULT 'ready' CHECK (thumbnail_state IN ('pending', 'ready', 'failed')),
  derived_from TEXT,
  session_id TEXT COLLATE "C",
  search_keys TEXT[] NOT NULL DEFAULT '{}',
  search_text TEXT NOT NULL DEFAULT ''
);
CREATE INDEX assets_live_newest ON assets (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_live_session ON assets (session_title, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_live_session_id ON assets (session_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_live_lane ON assets (lane, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_live_model ON assets (model, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_live_kind ON assets (kind, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_live_format ON assets (format, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX assets_tombstones ON assets (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX assets_request ON assets (request_id);
CREATE INDEX assets_thumbnail_pending ON assets (id) WHERE thumbnail_state = 'pending';
CREATE INDEX assets_derived_from ON assets (derived_from) WHERE derived_from IS NOT NULL;
CREATE INDEX assets_search ON assets USING gin (search_keys);

-- One row per group of live assets (a graph session, else a title, else ''): its live count and newest time.
CREATE TABLE asset_groups (
  group_key TEXT COLLATE "C" PRIMARY KEY,
  session_id TEXT COLLATE "C",
  session_title TEXT COLLATE "C",
  count INTEGER NOT NULL,
  latest_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX asset_groups_latest ON asset_groups (latest_at DESC, group_key DESC);

CREATE FUNCTION asset_group_key(session_id TEXT, session_title TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN session_id IS NOT NULL THEN 's:' || session_id WHEN session_title IS NOT NULL THEN 't:' || session_title ELSE '' END
$$;

-- A live row leaves its group (the count drops, an empty group goes, and when it was the newest the newest live row
-- left gives latest_at) and joins its new one. The group's row is locked by the first statement on it, so a writer
-- of the same group in another transaction waits, and the later statements (each its own snapshot) see its rows.
CREATE FUNCTION asset_groups_keep() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_live BOOLEAN := TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL;
  is_live BOOLEAN := TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL;
  old_key TEXT;
  new_key TEXT;
BEGIN
  IF was_live THEN old_key := asset_group_key(OLD.session_id, OLD.session_title); END IF;
  IF is_live THEN new_key := asset_group_key(NEW.session_id, NEW.session_title); END IF;
  IF was_live AND is_live AND old_key = new_key AND OLD.created_at = NEW.created_at THEN RETURN NULL; END IF;
  IF was_live THEN
    UPDATE asset_groups SET count = count - 1 WHERE group_key = old_key;
    DELETE FROM asset_groups WHERE group_key = old_key AND count <= 0;
    IF OLD.session_id IS NOT NULL THEN
      UPDATE asset_groups SET latest_at = COALESCE((SELECT created_at FROM assets
          WHERE session_id = OLD.session_id AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1), latest_at)
        WHERE group_key = old_key AND latest_at = OLD.created_at;
    ELSIF OLD.session_title IS NOT NULL THEN
      UPDATE asset_groups SET latest_at = COALESCE((SELECT created_at FROM assets
          WHERE session_title = OLD.session_title AND session_id IS NULL AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1), latest_at)
        WHERE group_key = old_key AND latest_at = OLD.created_at;
    ELSE
      UPDATE asset_groups SET latest_at = COALESCE((SELECT created_at FROM assets
          WHERE session_title IS NULL AND session_id IS NULL AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1), latest_at)
        WHERE group_key = old_key AND latest_at = OLD.created_at;
    END IF;
  END IF;
  IF is_live THEN
    INSERT INTO asset_groups (group_key, session_id, session_title, count, latest_at)
      VALUES (new_key, NEW.session_id, NEW.session_title, 1, NEW.created_at)
      ON CONFLICT (group_key) DO UPDATE SET count = asset_groups.count + 1, latest_at = GREATEST(asset_groups.latest_at, EXCLUDED.latest_at);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER asset_groups_keep AFTER INSERT OR DELETE OR UPDATE OF deleted_at, session_id, session_title, created_at ON assets
  FOR EACH ROW EXECUTE FUNCTION asset_groups_keep();

CREATE TABLE sessions (
  id TEXT COLLATE "C" PRIMARY KEY,
  title TEXT COLLATE "C" NOT NULL,
  version INTEGER NOT NULL,
  graph TEXT NOT NULL,
  node_count INTEGER NOT NULL DEFAULT 0,
  edge_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  deleted_at TEXT COLLATE "C"
);
CREATE INDEX sessions_live_newest ON sessions (created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE nodes (
  id TEXT COLLATE "C" PRIMARY KEY,
  session_id TEXT COLLATE "C",
  parent_id TEXT,
  request_id TEXT NOT NULL,
  operation TEXT NOT NULL CHECK (operation IN ('generate', 'edit')),
  prompt TEXT NOT NULL,
  revised_prompt TEXT,
  lane TEXT NOT NULL,
  model TEXT NOT NULL,
  settings TEXT NOT NULL DEFAULT '{}',
  asset_filename TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX nodes_session ON nodes (session_id, created_at);

CREATE TABLE agent_sessions (
  id TEXT COLLATE "C" PRIMARY KEY,
  title TEXT NOT NULL,
  settings TEXT NOT NULL DEFAULT '{}',
  web_search INTEGER NOT NULL DEFAULT 0,
  style_lock TEXT,
  subject_lock TEXT,
  current_image TEXT,
  previous_images TEXT NOT NULL DEFAULT '[]',
  images TEXT NOT NULL DEFAULT '[]',
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX agent_sessions_newest ON agent_sessions (created_at DESC, id DESC);
CREATE TABLE agent_turns (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  session_id TEXT COLLATE "C" NOT NULL,
  job_id TEXT COLLATE "C" NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 1,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  prompt TEXT NOT NULL,
  command TEXT,
  plan TEXT,
  final_prompt TEXT,
  provider TEXT,
  model TEXT,
  input_image TEXT,
  images TEXT NOT NULL DEFAULT '[]',
  timings TEXT,
  error TEXT,
  created_at TEXT COLLATE "C" NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX agent_turns_session ON agent_turns (session_id, seq);
CREATE INDEX agent_turns_job ON agent_turns (job_id);

CREATE TABLE flow_workflows (
  id TEXT COLLATE "C" PRIMARY KEY,
  label TEXT NOT NULL,
  origin TEXT NOT NULL,
  media_kind TEXT NOT NULL CHECK (media_kind IN ('image', 'video')),
  graph TEXT NOT NULL,
  bind TEXT NOT NULL,
  params TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
  },
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
  // The claim and the insert of a job under the team's claim lock (store/pg/jobs.ts), each one statement from the
  // studio, so the lock is held while the server runs them, never across a round trip to a busy studio. The policy
  // is SQLite's (store/jobs.ts), statement for statement. Each takes the lock first (take_claim_lock: claims and
  // inserts run one at a time over the whole database), and every statement after it sees what the holder before
  // committed: a VOLATILE PL/pgSQL function takes a new snapshot per statement under READ COMMITTED (the connections'
  // level, store/pg/database.ts; asserted here, as REPEATABLE READ would keep the snapshot of the call, taken before
  // the lock was granted). The lock goes at the caller's commit: called in autocommit, at the end of the statement.
  {
    name: 'jobs: claim_jobs and insert_job under the claim lock',
    sql: `
CREATE FUNCTION take_claim_lock() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'the claim lock needs READ COMMITTED (a snapshot per statement), this transaction is %',
      current_setting('transaction_isolation') USING ERRCODE = 'invalid_transaction_state';
  END IF;
  PERFORM pg_advisory_xact_lock(1400269313); -- 0x53766a01
END
$$;

-- One claim pass: the candidates (queued, or parked and due; of the holder's kinds; the oldest unfinished job of their
-- ordering key), ranked within their pool and kept within its limit less what holds a slot there, then ranked overall
-- and kept within what is left of the overall limit (both counted over every holder). The rank is the queue's, priority
-- then arrival, for parked jobs too. FOR UPDATE SKIP LOCKED passes over a row another transaction is writing (a cancel,
-- a take): fewer claimed this pass, never one twice; the state test of the UPDATE drops a row taken since the snapshot.
-- Answers the rows claimed, in no order.
CREATE FUNCTION claim_jobs(claim_owner TEXT, lease_until BIGINT, claim_at TEXT, claim_now BIGINT, overall BIGINT, kinds TEXT[])
  RETURNS SETOF jobs LANGUAGE plpgsql AS $$
BEGIN
  PERFORM take_claim_lock();
  RETURN QUERY
  WITH holding AS (SELECT pool, COUNT(*) AS n FROM jobs WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL GROUP BY pool),
  candidates AS (
    SELECT id, pool, pool_limit, priority, seq, ordering_key FROM jobs WHERE state = 'queued' AND kind = ANY(kinds)
    UNION ALL
    SELECT id, pool, pool_limit, priority, seq, ordering_key FROM jobs
    WHERE state = 'waiting' AND lease_owner IS NULL AND next_check_at <= claim_now AND kind = ANY(kinds)),
  eligible AS (
    SELECT c.id, c.pool, c.pool_limit, c.priority, c.seq FROM candidates c
    WHERE c.ordering_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM jobs k WHERE k.ordering_key = c.ordering_key AND k.finished_at IS NULL AND k.seq < c.seq)),
  ranked AS (SELECT e.*, ROW_NUMBER() OVER (PARTITION BY e.pool ORDER BY e.priority DESC, e.seq) AS pool_rank FROM eligible e),
  allowed AS (
    SELECT r.id, ROW_NUMBER() OVER (ORDER BY r.priority DESC, r.seq) AS overall_rank
    FROM ranked r LEFT JOIN holding h ON h.pool = r.pool
    WHERE r.pool_limit IS NULL OR r.pool_rank <= r.pool_limit - COALESCE(h.n, 0)),
  claimed AS (
    UPDATE jobs SET state = 'running', lease_owner = claim_owner, lease_expires_at = lease_until, started_at = COALESCE(started_at, claim_at),
      deadline_at = COALESCE(deadline_at, claim_now + budget_ms), reached_upstream = GREATEST(reached_upstream, reaches_at_start),
      next_check_at = NULL, updated_at = claim_at
    WHERE id IN (
        SELECT id FROM jobs WHERE id IN (SELECT id FROM allowed WHERE overall_rank <= overall - (
          SELECT COUNT(*) FROM jobs WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL))
        FOR UPDATE SKIP LOCKED)
      AND (state = 'queued' OR (state = 'waiting' AND lease_owner IS NULL))
    RETURNING *)
  SELECT * FROM claimed;
END
$$;

-- A new job (new_job: its columns of a new row, the others ignored) and the input files it holds; nothing when its id
-- is taken. With a claim (claim_owner not null): when nothing else could be claimed (alone, the common case), the policy
-- of claim_jobs for this one row (its kind, the overall and pool limits, its ordering key) says whether it is inserted
-- running, claimed, or queued (then no pass could claim it either); otherwise it is inserted queued and a pass follows.
-- Answers rows (what, place, job): 'existing' and the row that has the id; or 'claimed' for each job claimed (this one
-- among them when it was) and 'inserted' with its place in the queue (1: started).
CREATE FUNCTION insert_job(new_job jobs, input_hashes TEXT[],
    claim_owner TEXT, lease_until BIGINT, claim_at TEXT, claim_now BIGINT, overall BIGINT, kinds TEXT[])
  RETURNS TABLE (what TEXT, place BIGINT, job jobs) LANGUAGE plpgsql AS $$
DECLARE
  claiming BOOLEAN := claim_owner IS NOT NULL;
  alone BOOLEAN;
  claimed BOOLEAN;
  inserted jobs;
BEGIN
  PERFORM take_claim_lock();
  alone := claiming AND NOT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued')
    AND NOT EXISTS (SELECT 1 FROM jobs WHERE state = 'waiting' AND lease_owner IS NULL AND next_check_at <= claim_now);
  claimed := alone AND new_job.kind = ANY(kinds)
    AND (SELECT COUNT(*) FROM jobs WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL) < overall
    AND (new_job.pool_limit IS NULL OR (SELECT COUNT(*) FROM jobs
      WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL AND pool = new_job.pool) < new_job.pool_limit)
    AND (new_job.ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs WHERE ordering_key = new_job.ordering_key AND finished_at IS NULL));
  INSERT INTO jobs (id, kind, lane, model, request, created_at, priority, ordering_key, fingerprint, attempt, retry_of,
      pool, pool_limit, budget_ms, reaches_at_start, state, updated_at, lease_owner, lease_expires_at, started_at, deadline_at, reached_upstream)
    VALUES (new_job.id, new_job.kind, new_job.lane, new_job.model, new_job.request, new_job.created_at, new_job.priority, new_job.ordering_key,
      new_job.fingerprint, new_job.attempt, new_job.retry_of, new_job.pool, new_job.pool_limit, new_job.budget_ms, new_job.reaches_at_start,
      CASE WHEN claimed THEN 'running' ELSE 'queued' END,
      CASE WHEN claimed THEN claim_at ELSE new_job.created_at END,
      CASE WHEN claimed THEN claim_owner END,
      CASE WHEN claimed THEN lease_until END,
      CASE WHEN claimed THEN claim_at END,
      CASE WHEN claimed THEN claim_now + new_job.budget_ms END,
      CASE WHEN claimed THEN new_job.reaches_at_start ELSE 0 END)
    ON CONFLICT (id) DO NOTHING
    RETURNING * INTO inserted;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'existing', NULL::BIGINT, j FROM jobs j WHERE j.id = new_job.id;
    RETURN;
  END IF;
  INSERT INTO job_inputs (job_id, hash) SELECT inserted.id, hash FROM unnest(input_hashes) AS hash ON CONFLICT DO NOTHING;
  IF claimed THEN
    RETURN QUERY SELECT 'claimed', NULL::BIGINT, inserted;
  ELSIF claiming AND NOT alone THEN
    -- What waited before it may go first (the lock is held already).
    RETURN QUERY SELECT 'claimed', NULL::BIGINT, c FROM claim_jobs(claim_owner, lease_until, claim_at, claim_now, overall, kinds) c;
    claimed := EXISTS (SELECT 1 FROM jobs WHERE id = inserted.id AND state = 'running');
  END IF;
  RETURN QUERY SELECT 'inserted', CASE WHEN claimed THEN 1 ELSE (SELECT COUNT(*) + 1 FROM jobs WHERE state = 'queued'
      AND (priority > inserted.priority OR (priority = inserted.priority AND seq < inserted.seq))) END, inserted;
END
$$;
`,
  },
];
