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
];
