import type { JobStore } from '../../jobs/job-store.js';
import type { StudioStore } from '../repositories.js';
import { openPgDatabase } from './database.js';
import { PgEventLog } from './events.js';
import { PgJobStore } from './jobs.js';
import { pgStudioStore } from './pg-store.js';

// Team mode's stores over one PostgreSQL database: the repositories, the event log and the job
// queue, ready to use (connected, the schema made, the flow workflows' copy loaded). Loaded by
// store/open.ts only when SVC_DATABASE_URL is set, so an embedded studio never loads `pg`.

export async function openPgStores(url: string): Promise<{ store: StudioStore; jobs: JobStore; close(): Promise<void> }> {
  const database = openPgDatabase(url);
  try {
    await database.ready;
    const log = await PgEventLog.open(database);
    const store = pgStudioStore(database, log);
    try {
      await store.ready;
    } catch (error) {
      await store.close().catch(() => {});
      throw error;
    }
    return {
      store,
      jobs: new PgJobStore(database, log),
      async close() {
        await store.close();
        // What the log still holds is written before the pool ends.
        await log.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}
