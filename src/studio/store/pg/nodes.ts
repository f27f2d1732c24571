import type { NodeRow, NodeView } from '../nodes.js';
import type { NodeRepository } from '../repositories.js';
import type { PgDatabase } from './database.js';
import { replaceGraphOn } from './sessions.js';

// Nodes in PostgreSQL (store/nodes.ts says what a node is): written once, with their session's
// graph change in the same transaction when they ask for one.

const COLUMNS = [
  'id',
  'session_id',
  'parent_id',
  'request_id',
  'operation',
  'prompt',
  'revised_prompt',
  'lane',
  'model',
  'settings',
  'asset_filename',
  'created_at',
] as const;

export function pgNodeRepository(database: PgDatabase): NodeRepository {
  return {
    find: async (id) =>
      (
        await database.query<NodeView>(
          `SELECT ${COLUMNS.map((column) => `n.${column}`).join(', ')}, s.title AS session_title, s.deleted_at AS session_deleted_at,
             a.id AS asset_id, a.deleted_at AS asset_deleted_at
           FROM nodes n LEFT JOIN sessions s ON s.id = n.session_id LEFT JOIN assets a ON a.filename = n.asset_filename
           WHERE n.id = $1`,
          [id],
        )
      )[0],
    // The node first: when its id is taken the transaction ends there, before the graph is touched.
    record: (row: NodeRow, graph) =>
      database.transaction(async (client) => {
        await client.query(
          `INSERT INTO nodes (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_column, index) => `$${index + 1}`).join(', ')})`,
          COLUMNS.map((column) => row[column]),
        );
        return graph ? replaceGraphOn(client, graph.sessionId, graph.next, row.created_at) : undefined;
      }),
  };
}
