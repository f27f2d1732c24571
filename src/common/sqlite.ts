import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { isStorageFull } from './storage-full.js';

export type SqliteDatabase = Database.Database;

/** SQLite's ways of saying it could not make room for its wal-index (beside SQLITE_FULL). */
const NO_ROOM_FOR_INDEX = /^SQLITE_IOERR_SHM(SIZE|MAP)$/;

/**
 * WAL mode keeps a shared-memory index in a `-shm` file beside the database. On a full disk that
 * file cannot be made, and every read fails: the database is then opened with an exclusive lock,
 * where SQLite keeps that index in memory (no other process may open it meanwhile). Reads work;
 * writes fail SQLITE_FULL until there is room, and the next start opens it normally.
 */
function openWal(file: string): SqliteDatabase {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    return db;
  } catch (error) {
    db.close();
    if (!isStorageFull(error) && !NO_ROOM_FOR_INDEX.test((error as { code?: string }).code ?? '')) throw error;
  }
  const exclusive = new Database(file);
  exclusive.pragma('locking_mode = EXCLUSIVE');
  exclusive.pragma('journal_mode = WAL');
  process.stderr.write(`The disk holding ${file} is full: the database is open for this process alone until the next start.\n`);
  return exclusive;
}

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
  const db = openWal(file);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    db.close();
    throw new Error(
      `The database ${file} has schema version ${current}, newer than this build knows (${migrations.length}); upgrade ${program}.`,
    );
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
