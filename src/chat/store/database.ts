import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CHAT_MIGRATIONS } from './migrations.js';

export type ChatDatabase = Database.Database;

/** Opens the chat database in WAL mode and brings its schema to the newest version. */
export function openChatDatabase(file: string): ChatDatabase {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > CHAT_MIGRATIONS.length) {
    db.close();
    throw new Error(`The chat database schema (version ${current}) is newer than this build knows (${CHAT_MIGRATIONS.length}); upgrade svc-chat.`);
  }
  for (let version = current + 1; version <= CHAT_MIGRATIONS.length; version += 1) {
    // A migration and its version bump commit together.
    db.transaction(() => {
      db.exec(CHAT_MIGRATIONS[version - 1]);
      db.pragma(`user_version = ${version}`);
    })();
  }
  return db;
}
