import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.js';

export type StudioDatabase = Database.Database;

/** Opens the studio database in WAL mode and brings its schema to the newest version. */
export function openDatabase(file: string): StudioDatabase {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export function schemaVersion(db: StudioDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function migrate(db: StudioDatabase): void {
  const current = schemaVersion(db);
  const newest = MIGRATIONS.length;
  if (current > newest) {
    throw new Error(`The database schema (version ${current}) is newer than this build knows (${newest}); upgrade svc.`);
  }
  for (let version = current + 1; version <= newest; version += 1) {
    // Each migration and its version bump commit together, so a crash never leaves a half-applied step.
    db.transaction(() => {
      db.exec(MIGRATIONS[version - 1]);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
