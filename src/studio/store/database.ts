import { openSqlite, type SqliteDatabase } from '../../common/sqlite.js';
import { MIGRATIONS } from './migrations.js';

export type StudioDatabase = SqliteDatabase;

/** Opens the studio database (WAL) at the newest schema version. */
export const openDatabase = (file: string): StudioDatabase => openSqlite(file, MIGRATIONS, 'svc');
