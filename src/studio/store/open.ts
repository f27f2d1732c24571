import type { DurableWriter } from '../../common/durable-writer.js';
import type { JobStore } from '../jobs/job-store.js';
import type { AssetStore } from '../media/asset-store.js';
import type { StudioPaths } from '../paths.js';
import { LocalAssetStore } from './asset-files.js';
import { openDatabase, type StudioDatabase } from './database.js';
import { SqliteJobStore } from './jobs.js';
import type { StudioStore } from './repositories.js';
import { s3SettingsFromEnv } from './s3/settings.js';
import { sqliteStudioStore } from './sqlite-store.js';

// Which implementation of each port a studio runs on, chosen by its settings: the embedded
// default (one SQLite file and the state dir's folders), or team mode, where several studios
// share one PostgreSQL database (SVC_DATABASE_URL) and one S3-compatible bucket (SVC_ASSET_STORE).
// Team mode's modules (pg, the AWS SDK) are loaded only when a setting asks for them.

/** The variable that puts a studio's records, queue and events in PostgreSQL. */
export const DATABASE_URL_ENV = 'SVC_DATABASE_URL';

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
  /** Lets go of every store, the event log last but one (it writes what it holds), the database last. */
  close(): Promise<void>;
}

/** Where the database is, for a message: the URL without its password. */
const shownUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'SVC_DATABASE_URL (not a URL)';
  }
};

/** Opens every store; a store across the network is connected and its schema made before this answers (else it throws why). */
export async function openStudioStores(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly paths: StudioPaths;
  readonly files: DurableWriter;
}): Promise<StudioStores> {
  const { env, paths, files } = options;
  // A bad SVC_ASSET_STORE (or AWS variable) is refused before anything is opened.
  const s3 = s3SettingsFromEnv(env);
  const bucket = s3 && new (await import('./s3/asset-store.js')).S3AssetStore(s3);
  const assets = bucket ?? new LocalAssetStore(paths, files);
  const databaseUrl = env[DATABASE_URL_ENV];
  if (databaseUrl) {
    const { openPgStores } = await import('./pg/open.js');
    try {
      const pg = await openPgStores(databaseUrl);
      return {
        kinds: { database: 'postgresql', assets: bucket ? 's3' : 'files' },
        ...pg,
        assets,
        async close() {
          await pg.close();
          bucket?.close();
        },
      };
    } catch (error) {
      bucket?.close();
      throw new Error(`The studio's database at ${shownUrl(databaseUrl)} cannot be used: ${(error as Error).message}`, { cause: error });
    }
  }
  const db = openDatabase(paths.databaseFile);
  const store = sqliteStudioStore(db, paths.databaseFile);
  return {
    kinds: { database: 'sqlite', assets: bucket ? 's3' : 'files' },
    db,
    store,
    jobs: new SqliteJobStore(db),
    assets,
    async close() {
      await store.events.close();
      db.close();
      bucket?.close();
    },
  };
}

/** The embedded SQLite file of a studio, for what reaches into it (tests, benchmarks); throws in team mode. */
export function embeddedDatabase(studio: { readonly db?: StudioDatabase }): StudioDatabase {
  if (!studio.db) throw new Error('This studio keeps its state in PostgreSQL: it has no embedded SQLite file.');
  return studio.db;
}
