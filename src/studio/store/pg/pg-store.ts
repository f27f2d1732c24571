import type { EventLog, StudioStore } from '../repositories.js';
import { pgAgentRepository } from './agent.js';
import { pgAssetRepository } from './assets.js';
import type { PgDatabase } from './database.js';
import { PgFlowWorkflowRepository } from './flow-workflows.js';
import { pgNodeRepository } from './nodes.js';
import { pgGraphSessionRepository } from './sessions.js';

// The repositories (store/repositories.ts) over the studio's PostgreSQL database (team mode). Each
// call is one statement, or one transaction whose rows are locked (SELECT … FOR UPDATE) where the
// port asks for a unit atomic against every other writer, in this process or another. The event
// log is its own implementation, given in.

export interface PgStudioStore extends StudioStore {
  /**
   * Settles once the store can answer every read (the flow workflows' copy is loaded and kept
   * fresh); rejects when the database cannot be reached. Await it before serving.
   */
  readonly ready: Promise<void>;
  /** Ends what the store holds of its own (the connection that listens for workflow changes); the database and the event log stay open. */
  close(): Promise<void>;
}

export function pgStudioStore(database: PgDatabase, events: EventLog): PgStudioStore {
  const flowWorkflows = new PgFlowWorkflowRepository(database);
  return {
    assets: pgAssetRepository(database),
    graphSessions: pgGraphSessionRepository(database),
    nodes: pgNodeRepository(database),
    agent: pgAgentRepository(database),
    flowWorkflows,
    events,
    ready: flowWorkflows.ready,
    size: async () => (await database.query<{ size: number }>('SELECT pg_database_size(current_database()) AS size'))[0].size,
    close: () => flowWorkflows.close(),
  };
}
