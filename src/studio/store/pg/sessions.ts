import type pg from 'pg';
import type { GraphSessionRepository } from '../repositories.js';
import type { GraphReplacement, SessionListRow, SessionRow } from '../sessions.js';
import type { PgDatabase, PgQueryable } from './database.js';

// Graph sessions in PostgreSQL: the SQLite store's semantics (store/sessions.ts). A row keeps its
// graph's node and edge counts, written with the graph, so a list never parses a graph. A
// compare-and-swap locks the row (SELECT … FOR UPDATE) for its transaction: no other writer, of
// this process or another, comes between the read its callback sees and the write.

const COLUMNS = 'id, title, version, graph, created_at, updated_at, deleted_at';

/** How many nodes and edges a graph's JSON holds; 0 for what does not read as a list (one bad row never fails a list). */
export function graphCounts(graph: string): { node_count: number; edge_count: number } {
  try {
    const parsed = JSON.parse(graph) as { nodes?: unknown; edges?: unknown } | null;
    const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);
    return { node_count: count(parsed?.nodes), edge_count: count(parsed?.edges) };
  } catch {
    return { node_count: 0, edge_count: 0 };
  }
}

const findOn = async (client: PgQueryable, id: string, lock = ''): Promise<SessionRow | undefined> =>
  (await client.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1${lock}`, [id])).rows[0];

/** replaceGraph inside a transaction the caller holds on `client` (NodeRepository.record's too). */
export async function replaceGraphOn(
  client: pg.ClientBase,
  id: string,
  next: (current: SessionRow) => string | undefined,
  at: string,
): Promise<GraphReplacement> {
  const current = await findOn(client, id, ' FOR UPDATE');
  if (!current || current.deleted_at !== null) return { outcome: 'missing', row: current };
  const graph = next(current);
  if (graph === undefined) return { outcome: 'kept', row: current };
  const { node_count, edge_count } = graphCounts(graph);
  await client.query(
    'UPDATE sessions SET graph = $1, version = version + 1, updated_at = $2, node_count = $3, edge_count = $4 WHERE id = $5',
    [graph, at, node_count, edge_count, id],
  );
  return { outcome: 'replaced', row: { ...current, graph, version: current.version + 1, updated_at: at } };
}

export function pgGraphSessionRepository(database: PgDatabase): GraphSessionRepository {
  return {
    async insert(row) {
      const { node_count, edge_count } = graphCounts(row.graph);
      await database.query(
        'INSERT INTO sessions (id, title, version, graph, node_count, edge_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [row.id, row.title, row.version, row.graph, node_count, edge_count, row.created_at, row.updated_at],
      );
    },
    find: async (id) => (await database.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1`, [id]))[0],
    listLive: ({ limit, after }) =>
      database.query<SessionListRow>(
        `SELECT id, title, version, created_at, updated_at, node_count, edge_count FROM sessions
         WHERE deleted_at IS NULL${after ? ' AND (created_at, id) < ($2, $3)' : ''}
         ORDER BY created_at DESC, id DESC LIMIT $1`,
        after ? [limit, after.createdAt, after.id] : [limit],
      ),
    rename: async (id, title, at) =>
      (
        await database.query('UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3 AND deleted_at IS NULL RETURNING 1', [
          title,
          at,
          id,
        ])
      ).length > 0,
    // The graph goes with the session; the row stays so its images keep a title to be grouped under.
    async markDeleted(id, emptyGraph, at) {
      const { node_count, edge_count } = graphCounts(emptyGraph);
      const rows = await database.query(
        `UPDATE sessions SET deleted_at = $1, graph = $2, updated_at = $1, node_count = $3, edge_count = $4
         WHERE id = $5 AND deleted_at IS NULL RETURNING 1`,
        [at, emptyGraph, node_count, edge_count, id],
      );
      return rows.length > 0;
    },
    replaceGraph: (id, next, at) => database.transaction((client) => replaceGraphOn(client, id, next, at)),
  };
}
