import { openSqlite, type SqliteDatabase } from '../../common/sqlite.js';
import { MIGRATIONS } from './migrations.js';

export type StudioDatabase = SqliteDatabase;

/** Opens the studio database (WAL) at the newest schema version. */
export const openDatabase = (file: string): StudioDatabase => openSqlite(file, MIGRATIONS, 'svc');

/**
 * A table module's prepared statements, made once per database (preparing is most of a small
 * statement's cost): `const prepared = statementsOf((db) => ({ byId: db.prepare(...) }))`.
 */
export function statementsOf<S>(make: (db: StudioDatabase) => S): (db: StudioDatabase) => S {
  const cache = new WeakMap<StudioDatabase, S>();
  return (db) => {
    let found = cache.get(db);
    if (!found) cache.set(db, (found = make(db)));
    return found;
  };
}
