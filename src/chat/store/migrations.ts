// Chat schema migrations, applied in order on start; user_version is the
// number applied. Never edit a shipped entry: append a new one.
export const CHAT_MIGRATIONS: readonly string[] = [
  // 1: sessions, their messages, and each agent program's own conversation id per session.
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     title TEXT NOT NULL DEFAULT '',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE TABLE messages (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
     content TEXT NOT NULL,
     agent TEXT,
     trace_id TEXT,
     status TEXT,
     reason TEXT,
     created_at TEXT NOT NULL
   );
   CREATE INDEX messages_by_session ON messages (session_id, seq);
   CREATE TABLE agent_sessions (
     session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
     agent TEXT NOT NULL,
     native_id TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     PRIMARY KEY (session_id, agent)
   );`,
  // 2: goals (instance-wide, bounded history), PABCD orchestration state and its
  // transitions, and the agent process groups running now (reaped after a crash).
  `CREATE TABLE goals (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     status TEXT NOT NULL,
     is_current INTEGER NOT NULL DEFAULT 0,
     updated_at TEXT NOT NULL,
     data TEXT NOT NULL
   );
   CREATE TABLE orchestration (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     data TEXT NOT NULL
   );
   CREATE TABLE orc_transitions (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     at TEXT NOT NULL,
     data TEXT NOT NULL
   );
   CREATE TABLE agent_processes (
     trace_id TEXT PRIMARY KEY,
     pgid INTEGER NOT NULL,
     start_ticks INTEGER NOT NULL,
     boot_id TEXT NOT NULL,
     started_at TEXT NOT NULL
   );`,
  // 3: which server process recorded each agent group, so a second server started on the same
  // home by mistake does not reap the agents of one that is still running.
  `ALTER TABLE agent_processes ADD COLUMN owner_pid INTEGER;
   ALTER TABLE agent_processes ADD COLUMN owner_start_ticks INTEGER;`,
  // 4: the run queue, durable: every run waiting or running, in its session's order, with the
  // server process that holds it. A server killed with SIGKILL leaves its rows; the next start
  // ends the running ones `interrupted` and runs the waiting ones. Prompts an earlier version
  // left without an answer are taken in as running, so they end `interrupted` too.
  `CREATE TABLE run_queue (
     trace_id TEXT PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
     message_id TEXT NOT NULL,
     agent TEXT,
     origin TEXT NOT NULL,
     position INTEGER NOT NULL,
     started_at TEXT,
     owner_pid INTEGER,
     owner_start_ticks INTEGER,
     owner_boot_id TEXT
   );
   INSERT OR IGNORE INTO run_queue (trace_id, session_id, message_id, agent, origin, position, started_at)
     SELECT u.trace_id, u.session_id, u.id, u.agent, 'user', u.seq, u.created_at FROM messages u
     WHERE u.role = 'user' AND u.trace_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM messages a WHERE a.role = 'assistant' AND a.trace_id = u.trace_id);`,
  // 5: who wrote a user message: NULL for a person, `goal` or `orc` for an automatic turn, with a
  // short label for the page ("automatic turn 2 of 5 for goal …"), so it is never shown as the person's.
  `ALTER TABLE messages ADD COLUMN origin TEXT;
   ALTER TABLE messages ADD COLUMN origin_label TEXT;`,
];
