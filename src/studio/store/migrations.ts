// Schema migrations, applied in order on start; the database's user_version
// is the number applied. Never edit a shipped entry: append a new one.

// Pieces of migration 8's triggers (part of that migration's text, and of 11's: never change them; a
// change is a new migration). `row` is `new` or `old`.

/** The group of an asset row: its graph session, else its title, else ''. */
const groupKey = (row: string): string =>
  `CASE WHEN ${row}.session_id IS NOT NULL THEN 's:' || ${row}.session_id WHEN ${row}.session_title IS NOT NULL THEN 't:' || ${row}.session_title ELSE '' END`;

/** A live row joins its group. */
const joinGroup = (row: string): string => `
     INSERT INTO asset_groups (group_key, session_id, session_title, count, latest_at)
       VALUES (${groupKey(row)}, ${row}.session_id, ${row}.session_title, 1, ${row}.created_at)
       ON CONFLICT (group_key) DO UPDATE SET count = count + 1, latest_at = MAX(latest_at, excluded.latest_at);`;

/**
 * A live row leaves its group: the count drops (an empty group goes) and, when it was the newest,
 * the newest live row left gives latest_at (each case reads its own index newest first).
 */
const leaveGroup = (row: string): string => `
     UPDATE asset_groups SET count = count - 1 WHERE group_key = ${groupKey(row)};
     DELETE FROM asset_groups WHERE group_key = ${groupKey(row)} AND count <= 0;
     UPDATE asset_groups SET latest_at = CASE
         WHEN ${row}.session_id IS NOT NULL THEN (SELECT created_at FROM assets WHERE session_id = ${row}.session_id AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1)
         ELSE (SELECT created_at FROM assets WHERE session_title IS ${row}.session_title AND session_id IS NULL AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1)
       END
       WHERE group_key = ${groupKey(row)} AND latest_at = ${row}.created_at;`;

export const MIGRATIONS: readonly string[] = [
  // 1: key/value metadata (e.g. when the database was created).
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   INSERT INTO meta (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));`,
  // 2: generated assets (history). deleted_at marks a tombstone; the sweeper purges old ones.
  `CREATE TABLE assets (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     filename TEXT NOT NULL UNIQUE,
     thumbnail TEXT NOT NULL UNIQUE,
     format TEXT NOT NULL CHECK (format IN ('png', 'jpeg', 'webp')),
     width INTEGER NOT NULL,
     height INTEGER NOT NULL,
     bytes INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     prompt TEXT NOT NULL,
     lane TEXT NOT NULL,
     model TEXT NOT NULL,
     request_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     session_title TEXT,
     revised_prompt TEXT,
     settings TEXT NOT NULL DEFAULT '{}',
     deleted_at TEXT
   );
   CREATE INDEX assets_live_newest ON assets (created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_session ON assets (session_title, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_tombstones ON assets (deleted_at) WHERE deleted_at IS NOT NULL;
   CREATE INDEX assets_request ON assets (request_id);`,
  // 3: durable jobs. id is the requestId; request is the accepted request without secrets or
  // image bytes; upstream_* hold the vendor's own operation while one runs (a prediction, a video job).
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     lane TEXT,
     model TEXT,
     state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
     phase TEXT,
     upstream_operation_id TEXT,
     upstream_state TEXT,
     request TEXT NOT NULL,
     result TEXT,
     error TEXT,
     created_at TEXT NOT NULL,
     started_at TEXT,
     updated_at TEXT NOT NULL,
     finished_at TEXT
   );
   CREATE INDEX jobs_unfinished ON jobs (state) WHERE finished_at IS NULL;
   CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;`,
  // 4: an asset is answered once its file and row are durable; its thumbnail (and the full decode
  // check) follow off the request path. 'pending' rows are finished at start-up.
  `ALTER TABLE assets ADD COLUMN thumbnail_state TEXT NOT NULL DEFAULT 'ready' CHECK (thumbnail_state IN ('pending', 'ready', 'failed'));
   CREATE INDEX assets_thumbnail_pending ON assets (id) WHERE thumbnail_state = 'pending';`,
  // 5: vector assets (SVG traced from a raster one): the format check widens to 'svg' (SQLite
  // changes a CHECK only by rebuilding the table) and derived assets name their source.
  `CREATE TABLE assets_v5 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     filename TEXT NOT NULL UNIQUE,
     thumbnail TEXT NOT NULL UNIQUE,
     format TEXT NOT NULL CHECK (format IN ('png', 'jpeg', 'webp', 'svg')),
     width INTEGER NOT NULL,
     height INTEGER NOT NULL,
     bytes INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     prompt TEXT NOT NULL,
     lane TEXT NOT NULL,
     model TEXT NOT NULL,
     request_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     session_title TEXT,
     revised_prompt TEXT,
     settings TEXT NOT NULL DEFAULT '{}',
     deleted_at TEXT,
     thumbnail_state TEXT NOT NULL DEFAULT 'ready' CHECK (thumbnail_state IN ('pending', 'ready', 'failed')),
     derived_from TEXT
   );
   INSERT INTO assets_v5 (id, filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, session_title, revised_prompt, settings, deleted_at, thumbnail_state)
     SELECT id, filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, session_title, revised_prompt, settings, deleted_at, thumbnail_state FROM assets;
   DROP TABLE assets;
   ALTER TABLE assets_v5 RENAME TO assets;
   CREATE INDEX assets_live_newest ON assets (created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_session ON assets (session_title, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_tombstones ON assets (deleted_at) WHERE deleted_at IS NOT NULL;
   CREATE INDEX assets_request ON assets (request_id);
   CREATE INDEX assets_thumbnail_pending ON assets (id) WHERE thumbnail_state = 'pending';
   CREATE INDEX assets_derived_from ON assets (derived_from) WHERE derived_from IS NOT NULL;`,
  // 6: graph sessions. A session's graph is one JSON snapshot with a version (optimistic concurrency:
  // a save names the version it replaces); a deleted session keeps its row and title, so its images
  // can say so. nodes records each node generation; an image made by one carries its session_id.
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     title TEXT NOT NULL,
     version INTEGER NOT NULL,
     graph TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     deleted_at TEXT
   );
   CREATE INDEX sessions_live_newest ON sessions (created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE TABLE nodes (
     id TEXT PRIMARY KEY,
     session_id TEXT,
     parent_id TEXT,
     request_id TEXT NOT NULL,
     operation TEXT NOT NULL CHECK (operation IN ('generate', 'edit')),
     prompt TEXT NOT NULL,
     revised_prompt TEXT,
     lane TEXT NOT NULL,
     model TEXT NOT NULL,
     settings TEXT NOT NULL DEFAULT '{}',
     asset_filename TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX nodes_session ON nodes (session_id, created_at);
   ALTER TABLE assets ADD COLUMN session_id TEXT;
   CREATE INDEX assets_live_session_id ON assets (session_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;`,
  // 7: history at scale. assets_fts indexes the prompt and revised prompt (an external-content FTS5
  // table over assets: the triggers keep it in step with every insert, update and purge, and the
  // rebuild indexes the rows already there). One index per filter keeps a filtered page as cheap as
  // an unfiltered one however large the library. A later migration that rebuilds the assets table
  // must drop and recreate these triggers and rebuild assets_fts.
  `CREATE VIRTUAL TABLE assets_fts USING fts5(prompt, revised_prompt, content='assets', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
   INSERT INTO assets_fts (assets_fts) VALUES ('rebuild');
   CREATE TRIGGER assets_fts_insert AFTER INSERT ON assets BEGIN
     INSERT INTO assets_fts (rowid, prompt, revised_prompt) VALUES (new.id, new.prompt, new.revised_prompt);
   END;
   CREATE TRIGGER assets_fts_delete AFTER DELETE ON assets BEGIN
     INSERT INTO assets_fts (assets_fts, rowid, prompt, revised_prompt) VALUES ('delete', old.id, old.prompt, old.revised_prompt);
   END;
   CREATE TRIGGER assets_fts_update AFTER UPDATE OF prompt, revised_prompt ON assets BEGIN
     INSERT INTO assets_fts (assets_fts, rowid, prompt, revised_prompt) VALUES ('delete', old.id, old.prompt, old.revised_prompt);
     INSERT INTO assets_fts (rowid, prompt, revised_prompt) VALUES (new.id, new.prompt, new.revised_prompt);
   END;
   CREATE INDEX assets_live_lane ON assets (lane, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_model ON assets (model, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_kind ON assets (kind, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_format ON assets (format, created_at DESC, id DESC) WHERE deleted_at IS NULL;`,
  // 8: session groups kept as rows (history's groupBy=session): one row per group (a graph
  // session, else a title, else '') with its live count and newest creation time, kept by triggers
  // on every change of a live row, so a page of groups reads a page of rows instead of grouping the
  // whole library. A later migration that rebuilds the assets table must recreate these triggers.
  `CREATE TABLE asset_groups (
     group_key TEXT PRIMARY KEY,
     session_id TEXT,
     session_title TEXT,
     count INTEGER NOT NULL,
     latest_at TEXT NOT NULL
   );
   CREATE INDEX asset_groups_latest ON asset_groups (latest_at DESC, group_key DESC);
   INSERT INTO asset_groups (group_key, session_id, session_title, count, latest_at)
     SELECT ${groupKey('a')} AS group_key, a.session_id, a.session_title, COUNT(*), MAX(a.created_at)
     FROM assets a WHERE a.deleted_at IS NULL GROUP BY group_key;
   CREATE TRIGGER asset_groups_insert AFTER INSERT ON assets WHEN new.deleted_at IS NULL BEGIN ${joinGroup('new')} END;
   CREATE TRIGGER asset_groups_tombstone AFTER UPDATE OF deleted_at ON assets WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL BEGIN ${leaveGroup('old')} END;
   CREATE TRIGGER asset_groups_restore AFTER UPDATE OF deleted_at ON assets WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL BEGIN ${joinGroup('new')} END;
   CREATE TRIGGER asset_groups_move AFTER UPDATE OF session_id, session_title, created_at ON assets WHEN old.deleted_at IS NULL AND new.deleted_at IS NULL BEGIN
     ${leaveGroup('old')} ${joinGroup('new')}
   END;
   CREATE TRIGGER asset_groups_delete AFTER DELETE ON assets WHEN old.deleted_at IS NULL BEGIN ${leaveGroup('old')} END;`,
  // 9: the job engine. The jobs table becomes a queue: a 'waiting' state (the upstream holds the job
  // or its next status call is scheduled), priority and an ordering key (strict FIFO per key), a
  // lease (owner, expiry) so several processes can share the queue, attempts linked to the first,
  // the fingerprint of the client's body (the same requestId with the same body is the same job),
  // the stored deadline and the lane's operation as JSON, and the checkpoint that says the upstream
  // may have been reached (billing at most once). job_inputs names the content-addressed input
  // files each job holds. A running job of the old schema may have reached its upstream; a gamma
  // one keeps its prediction as its operation. The partial indexes follow the queue (queued) and
  // the slots (running, waiting); an index of all unfinished rows cost every write more than the
  // rare full list (GET /api/inflight) saves.
  `CREATE TABLE jobs_v9 (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     lane TEXT,
     model TEXT,
     state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'interrupted')),
     phase TEXT,
     priority INTEGER NOT NULL DEFAULT 0,
     ordering_key TEXT,
     fingerprint TEXT,
     attempt INTEGER NOT NULL DEFAULT 1,
     retry_of TEXT,
     lease_owner TEXT,
     lease_expires_at INTEGER,
     deadline_at INTEGER,
     next_check_at INTEGER,
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
   INSERT INTO jobs_v9 (id, kind, lane, model, state, phase, reached_upstream, operation, upstream_operation_id, upstream_state, request, result, error, created_at, started_at, updated_at, finished_at)
     SELECT id, kind, lane, model, state, phase, state = 'running',
       CASE WHEN lane = 'gamma' AND upstream_operation_id IS NOT NULL THEN json_object('predictionId', upstream_operation_id) END,
       upstream_operation_id, upstream_state, request, result, error, created_at, started_at, updated_at, finished_at
     FROM jobs;
   DROP TABLE jobs;
   ALTER TABLE jobs_v9 RENAME TO jobs;
   CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
   CREATE INDEX jobs_queue ON jobs (priority DESC) WHERE state = 'queued';
   CREATE INDEX jobs_active ON jobs (lane) WHERE state IN ('running', 'waiting');
   CREATE INDEX jobs_ordering ON jobs (ordering_key) WHERE finished_at IS NULL AND ordering_key IS NOT NULL;
   CREATE INDEX jobs_attempts ON jobs (retry_of) WHERE retry_of IS NOT NULL;
   CREATE TABLE job_inputs (
     job_id TEXT NOT NULL,
     hash TEXT NOT NULL,
     PRIMARY KEY (job_id, hash)
   ) WITHOUT ROWID;
   CREATE INDEX job_inputs_hash ON job_inputs (hash);`,
  // 10: typed job kinds. An image job's slot stores its model resolved once at planning
  // ({ requested, id, upstreamId }) instead of the id asked for. A job of schema 9 keeps what it
  // asked for, and what ran: the row's model when it had one model for every slot.
  `UPDATE jobs SET request = json_set(request, '$.slots', (
     SELECT json_group_array(json_set(slot.value, '$.model', json_object(
       'requested', json_extract(slot.value, '$.model'),
       'id', COALESCE(jobs.model, json_extract(slot.value, '$.model')),
       'upstreamId', COALESCE(jobs.model, json_extract(slot.value, '$.model')))))
     FROM json_each(jobs.request, '$.slots') AS slot))
   WHERE json_type(request, '$.slots[0].model') = 'text';`,
  // 11: videos in history: the format check widens to 'mp4' (SQLite changes a CHECK only by
  // rebuilding the table). The rows keep their ids, so assets_fts (external content by id) stays
  // valid; the triggers of migrations 7 and 8 go with the old table and are made again here, as
  // are its indexes. The triggers are dropped first, so the copy and the drop fire none.
  `DROP TRIGGER assets_fts_insert;
   DROP TRIGGER assets_fts_delete;
   DROP TRIGGER assets_fts_update;
   DROP TRIGGER asset_groups_insert;
   DROP TRIGGER asset_groups_tombstone;
   DROP TRIGGER asset_groups_restore;
   DROP TRIGGER asset_groups_move;
   DROP TRIGGER asset_groups_delete;
   CREATE TABLE assets_v11 (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     filename TEXT NOT NULL UNIQUE,
     thumbnail TEXT NOT NULL UNIQUE,
     format TEXT NOT NULL CHECK (format IN ('png', 'jpeg', 'webp', 'svg', 'mp4')),
     width INTEGER NOT NULL,
     height INTEGER NOT NULL,
     bytes INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     prompt TEXT NOT NULL,
     lane TEXT NOT NULL,
     model TEXT NOT NULL,
     request_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     session_title TEXT,
     revised_prompt TEXT,
     settings TEXT NOT NULL DEFAULT '{}',
     deleted_at TEXT,
     thumbnail_state TEXT NOT NULL DEFAULT 'ready' CHECK (thumbnail_state IN ('pending', 'ready', 'failed')),
     derived_from TEXT,
     session_id TEXT
   );
   INSERT INTO assets_v11 (id, filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, session_title, revised_prompt, settings, deleted_at, thumbnail_state, derived_from, session_id)
     SELECT id, filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, session_title, revised_prompt, settings, deleted_at, thumbnail_state, derived_from, session_id FROM assets;
   DROP TABLE assets;
   ALTER TABLE assets_v11 RENAME TO assets;
   CREATE INDEX assets_live_newest ON assets (created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_session ON assets (session_title, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_tombstones ON assets (deleted_at) WHERE deleted_at IS NOT NULL;
   CREATE INDEX assets_request ON assets (request_id);
   CREATE INDEX assets_thumbnail_pending ON assets (id) WHERE thumbnail_state = 'pending';
   CREATE INDEX assets_derived_from ON assets (derived_from) WHERE derived_from IS NOT NULL;
   CREATE INDEX assets_live_session_id ON assets (session_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_lane ON assets (lane, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_model ON assets (model, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_kind ON assets (kind, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE INDEX assets_live_format ON assets (format, created_at DESC, id DESC) WHERE deleted_at IS NULL;
   CREATE TRIGGER assets_fts_insert AFTER INSERT ON assets BEGIN
     INSERT INTO assets_fts (rowid, prompt, revised_prompt) VALUES (new.id, new.prompt, new.revised_prompt);
   END;
   CREATE TRIGGER assets_fts_delete AFTER DELETE ON assets BEGIN
     INSERT INTO assets_fts (assets_fts, rowid, prompt, revised_prompt) VALUES ('delete', old.id, old.prompt, old.revised_prompt);
   END;
   CREATE TRIGGER assets_fts_update AFTER UPDATE OF prompt, revised_prompt ON assets BEGIN
     INSERT INTO assets_fts (assets_fts, rowid, prompt, revised_prompt) VALUES ('delete', old.id, old.prompt, old.revised_prompt);
     INSERT INTO assets_fts (rowid, prompt, revised_prompt) VALUES (new.id, new.prompt, new.revised_prompt);
   END;
   CREATE TRIGGER asset_groups_insert AFTER INSERT ON assets WHEN new.deleted_at IS NULL BEGIN ${joinGroup('new')} END;
   CREATE TRIGGER asset_groups_tombstone AFTER UPDATE OF deleted_at ON assets WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL BEGIN ${leaveGroup('old')} END;
   CREATE TRIGGER asset_groups_restore AFTER UPDATE OF deleted_at ON assets WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL BEGIN ${joinGroup('new')} END;
   CREATE TRIGGER asset_groups_move AFTER UPDATE OF session_id, session_title, created_at ON assets WHEN old.deleted_at IS NULL AND new.deleted_at IS NULL BEGIN
     ${leaveGroup('old')} ${joinGroup('new')}
   END;
   CREATE TRIGGER asset_groups_delete AFTER DELETE ON assets WHEN old.deleted_at IS NULL BEGIN ${leaveGroup('old')} END;`,
  // 12: Agent Mode. A session keeps its image settings, locks, its current image (and the ones before
  // it, for /undo) and every image it made; a turn is one queue item: the job of its latest attempt
  // (job_id), its state, its plan and what it made. Turns outlive their jobs (the retention sweep).
  `CREATE TABLE agent_sessions (
     id TEXT PRIMARY KEY,
     title TEXT NOT NULL,
     settings TEXT NOT NULL DEFAULT '{}',
     web_search INTEGER NOT NULL DEFAULT 0,
     style_lock TEXT,
     subject_lock TEXT,
     current_image TEXT,
     previous_images TEXT NOT NULL DEFAULT '[]',
     images TEXT NOT NULL DEFAULT '[]',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX agent_sessions_newest ON agent_sessions (created_at DESC, id DESC);
   CREATE TABLE agent_turns (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     session_id TEXT NOT NULL,
     job_id TEXT NOT NULL,
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
     created_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT
   );
   CREATE INDEX agent_turns_session ON agent_turns (session_id, seq);
   CREATE INDEX agent_turns_job ON agent_turns (job_id);`,
  // 13: flow workflows (the workflow catalog of the flow lane: a registered node-graph workflow is a
  // model). graph, bind and params are JSON; origin is the node-graph server the workflow runs on.
  `CREATE TABLE flow_workflows (
     id TEXT PRIMARY KEY,
     label TEXT NOT NULL,
     origin TEXT NOT NULL,
     media_kind TEXT NOT NULL CHECK (media_kind IN ('image', 'video')),
     graph TEXT NOT NULL,
     bind TEXT NOT NULL,
     params TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
  // 14: a job's claim policy on its row, written at submit, so that one statement claims (no engine
  // callback per row): pool (the limit group: its lane, else its kind) and pool_limit (NULL: none),
  // budget_ms (the deadline is the first start plus it), reaches_at_start (the first start is the
  // billing checkpoint), and polls (status calls made, so a parked job keeps its intervals). A waiting
  // job with no lease owner is parked: it holds no slot and any engine claims it at next_check_at.
  // Rows queued before this migration get an hour's budget (the longest any kind had by default) and
  // their first start as the checkpoint (a crash right after it interrupts them: never billed twice).
  `ALTER TABLE jobs ADD COLUMN pool TEXT;
   ALTER TABLE jobs ADD COLUMN pool_limit INTEGER;
   ALTER TABLE jobs ADD COLUMN budget_ms INTEGER;
   ALTER TABLE jobs ADD COLUMN reaches_at_start INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE jobs ADD COLUMN polls INTEGER NOT NULL DEFAULT 0;
   UPDATE jobs SET pool = COALESCE(lane, kind), budget_ms = 3600000, reaches_at_start = 1 WHERE finished_at IS NULL;
   DROP INDEX jobs_active;
   CREATE INDEX jobs_slots ON jobs (pool) WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL;
   CREATE INDEX jobs_parked ON jobs (next_check_at) WHERE state = 'waiting' AND lease_owner IS NULL;
   CREATE INDEX jobs_ownerless ON jobs (id) WHERE state = 'running' AND lease_owner IS NULL;`,
  // 15: the event log (the studio's EventBus: replay across restarts). One row per published event: seq is its
  // position (its id is `<event_log_id>-<seq>`), data the replay copy's JSON without its id (transient fields never
  // stored), payload_id the id its JSON carries instead of the cursor. event_log_id names this database's log, so a
  // cursor from another (or a wiped) one is told apart; event_log_reserved is the highest seq handed out in blocks
  // (store/events.ts), so none is given twice.
  `CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     data TEXT NOT NULL,
     payload_id TEXT
   );
   INSERT INTO meta (key, value) VALUES ('event_log_id', lower(hex(randomblob(5)))), ('event_log_reserved', '0');`,
];
