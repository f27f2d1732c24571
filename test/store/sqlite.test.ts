import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { studioEventChannel } from '../../src/studio/event-bus.js';
import { openDatabase } from '../../src/studio/store/database.js';
import { eventLogOf, SqliteEventLog } from '../../src/studio/store/events.js';
import { SqliteJobStore } from '../../src/studio/store/jobs.js';
import { sqliteStudioStore } from '../../src/studio/store/sqlite-store.js';
import { describeAgentRepositoryContract } from './contracts/agent-repository.contract.js';
import { describeAssetRepositoryContract } from './contracts/asset-repository.contract.js';
import { describeEventBusContract } from './contracts/event-bus.contract.js';
import { describeEventLogContract } from './contracts/event-log.contract.js';
import { describeFlowWorkflowRepositoryContract } from './contracts/flow-workflow-repository.contract.js';
import { describeGraphRepositoriesContract } from './contracts/graph-repositories.contract.js';
import type { StoreHarness } from './contracts/harness.js';
import { describeJobStoreContract } from './contracts/job-store.contract.js';

// The SQLite implementations run the port contracts: each test gets a new
// database file in a temp dir, migrated as the studio opens it.

function freshDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-contract-'));
  const file = join(dir, 'studio.db');
  const db = openDatabase(file);
  return {
    db,
    file,
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const makeStore = async (): Promise<StoreHarness> => {
  const { db, file, close } = freshDatabase();
  return { store: sqliteStudioStore(db, file), close };
};

describeAssetRepositoryContract('SQLite', makeStore);
describeGraphRepositoriesContract('SQLite', makeStore);
describeAgentRepositoryContract('SQLite', makeStore);
describeFlowWorkflowRepositoryContract('SQLite', makeStore);
describeJobStoreContract('SQLite', async () => {
  const { db, close } = freshDatabase();
  return { store: new SqliteJobStore(db), events: eventLogOf(db), close };
});
describeEventLogContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-event-log-contract-'));
  const file = join(dir, 'studio.db');
  let db = openDatabase(file);
  let log = new SqliteEventLog(db);
  return {
    log,
    async reopen() {
      await log.close();
      db.close();
      db = openDatabase(file);
      log = new SqliteEventLog(db);
      return log;
    },
    close: async () => {
      await log.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// The studio's bus (the event channel over the SQLite log) runs the EventBus contract as the channel in memory does.
const busDatabases: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  // Each bus's log writes its last turn's rows first.
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(busDatabases.map((database) => database.close()));
});
describeEventBusContract('the studio event bus over the SQLite log', (options) => {
  const database = freshDatabase();
  busDatabases.push(database);
  return studioEventChannel(new SqliteEventLog(database.db), { ...options, onListenerError: () => {} });
});
