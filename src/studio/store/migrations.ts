// Schema migrations, applied in order on start; the database's user_version
// is the number applied. Never edit a shipped entry: append a new one.
export const MIGRATIONS: readonly string[] = [
  // 1: key/value metadata (e.g. when the database was created).
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   INSERT INTO meta (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));`,
];
