import type { DurableWriter } from '../../common/durable-writer.js';
import type { JobStore } from '../jobs/job-store.js';
import type { AssetStore } from '../media/asset-store.js';
import type { StudioPaths } from '../paths.js';
import { LocalAssetStore } from './asset-files.js';
import { openDatabase, type StudioDatabase } from './database.js';
import { deferredAssetStore } from './deferred-assets.js';
import { s3SettingsFromEnv } from './s3/settings.js';
import { SqliteJobStore } from './jobs.js';
import type { StudioStore } from './repositories.js';
import { sqliteStudioStore } from './sqlite-store.js';

// Which implementation of each port a studio runs on, chosen by its settings: the embedded
// default (one SQLite file and the state dir's folders), or team mode, where several studios
// share one PostgreSQL (SVC_DATABASE_URL) and one S3-compatible bucket (SVC_ASSET_STORE).

/** What a studio's state is kept in (GET /api/health says it). */
export interface StorageKinds {
  readonly database: 'sqlite' | 'postgresql';
  readonly assets: 'files' | 's3';
}

export interface StudioStores {
  readonly kinds: StorageKinds;
  /** The embedded SQLite file; absent in team mode. Only store/ and tests reach into it. */
  readonly db?: StudioDatabase;
  readonly store: StudioStore;
  readonly jobs: JobStore;
  readonly assets: AssetStore;
  /** Settles when every store can be used (a networked one has connected and made its schema); rejects with why not. */
  readonly ready: Promise<void>;
  /** Lets go of every store (after the event log has written what it holds). */
  close(): Promise<void>;
}

export function openStudioStores(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly paths: StudioPaths;
  readonly files: DurableWriter;
}): StudioStores {
  const { env, paths, files } = options;
  // A bad SVC_ASSET_STORE (or AWS variable) is refused here, before anything is opened.
  const s3 = s3SettingsFromEnv(env);
  const s3Store = s3 && deferredAssetStore(async () => new (await import('./s3/asset-store.js')).S3AssetStore(s3));
  const db = openDatabase(paths.databaseFile);
  const store = sqliteStudioStore(db, paths.databaseFile);
  return {
    kinds: { database: 'sqlite', assets: s3Store ? 's3' : 'files' },
    db,
    store,
    jobs: new SqliteJobStore(db),
    assets: s3Store ?? new LocalAssetStore(paths, files),
    ready: s3Store ? s3Store.loaded : Promise.resolve(),
    async close() {
      await store.events.close();
      db.close();
      await s3Store?.close();
    },
  };
}

/** The embedded SQLite file of a studio, for what reaches into it (tests, benchmarks); throws in team mode. */
export function embeddedDatabase(studio: { readonly db?: StudioDatabase }): StudioDatabase {
  if (!studio.db) throw new Error('This studio keeps its state in PostgreSQL: it has no embedded SQLite file.');
  return studio.db;
}
