// The PostgreSQL schema's migrations, applied in order on open (store/pg/database.ts); the table
// svc_migrations records which are applied. Never edit a shipped entry: append a new one.

export interface PgMigration {
  /** What it makes, for the record and for an error. */
  readonly name: string;
  readonly sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [];
