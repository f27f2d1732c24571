import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

/**
 * Opens a SQLite database in WAL mode and applies `migrations` (an append-only
 * list; the database's user_version is how many are applied). A database
 * newer than the build is refused rather than misread.
 */
export function openSqlite(file: string, migrations: readonly string[], program: string): SqliteDatabase {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // SQLite gives its -wal and -shm files the database file's mode: creating it 0600 keeps all three private.
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    db.close();
    throw new Error(`The database ${file} has schema version ${current}, newer than this build knows (${migrations.length}); upgrade ${program}.`);
  }
  for (let version = current + 1; version <= migrations.length; version += 1) {
    // A migration and its version bump commit together: a crash never leaves a half-applied step.
    db.transaction(() => {
      db.exec(migrations[version - 1]);
      db.pragma(`user_version = ${version}`);
    })();
  }
  return db;
}
