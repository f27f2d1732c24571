import type { JobStore } from '../../jobs/job-store.js';
import type { StudioStore } from '../repositories.js';
import { openPgDatabase, type PgDatabase } from './database.js';
import { PgEventLog } from './events.js';
import { PgJobStore } from './jobs.js';
import { pgStudioStore } from './pg-store.js';

// Team mode's stores over one PostgreSQL database: the repositories, the event log and the job
// queue, ready to use (connected, the schema made, the flow workflows' copy loaded). Loaded by
// store/open.ts only when SVC_DATABASE_URL is set, so an embedded studio never loads `pg`.

/**
 * Connections of the event log's own: its statements run one at a time (plus the LISTEN
 * connection), and with a pool of their own they never wait behind the queue's (a claim waiting
 * for the claim lock holds its connection), so events go live at the pace they are written.
 */
const EVENT_LOG_CONNECTIONS = 2;

export async function openPgStores(url: string): Promise<{ store: StudioStore; jobs: JobStore; close(): Promise<void> }> {
  const database = openPgDatabase(url);
  // Opened once the schema is made (its migration list is empty: it makes nothing).
  let events: PgDatabase | undefined;
  try {
    await database.ready;
    events = openPgDatabase(url, { max: EVENT_LOG_CONNECTIONS, migrations: [] });
    const log = await PgEventLog.open(events);
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
        // What the log still holds is written before the pools end.
        await log.close();
        await events?.close();
        await database.close();
      },
    };
  } catch (error) {
    await events?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
