import { openSqlite, type SqliteDatabase } from '../../common/sqlite.js';
import { CHAT_MIGRATIONS } from './migrations.js';

export type ChatDatabase = SqliteDatabase;

/** Opens the chat database (WAL) at the newest schema version. */
export const openChatDatabase = (file: string): ChatDatabase => openSqlite(file, CHAT_MIGRATIONS, 'svc-chat');
