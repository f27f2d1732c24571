import { statementsOf, type StudioDatabase } from './database.js';
import { replaceGraph, type GraphReplacement, type SessionRow } from './sessions.js';

// The nodes table (migration 6): one row per node generation, written by the
// node job once its image is saved. Rows are never changed: a node is the
// record of how an image was made, and stays when its session is deleted
// (like the image itself).

export interface NodeRow {
  id: string;
  session_id: string | null;
  parent_id: string | null;
  request_id: string;
  operation: 'generate' | 'edit';
  prompt: string;
  revised_prompt: string | null;
  lane: string;
  model: string;
  /** JSON. */
  settings: string;
  asset_filename: string;
  created_at: string;
}

/** A node with what it points at: its session's title and state, its image's state. */
export interface NodeView extends NodeRow {
  session_title: string | null;
  session_deleted_at: string | null;
  /** Null when the image's row is gone (purged). */
  asset_id: number | null;
  asset_deleted_at: string | null;
}

function statements(db: StudioDatabase) {
  return {
    insert: db.prepare<NodeRow>(
      `INSERT INTO nodes (id, session_id, parent_id, request_id, operation, prompt, revised_prompt, lane, model, settings, asset_filename, created_at)
       VALUES (@id, @session_id, @parent_id, @request_id, @operation, @prompt, @revised_prompt, @lane, @model, @settings, @asset_filename, @created_at)`,
    ),
    view: db.prepare<[string], NodeView>(
      `SELECT n.*, s.title AS session_title, s.deleted_at AS session_deleted_at, a.id AS asset_id, a.deleted_at AS asset_deleted_at
       FROM nodes n LEFT JOIN sessions s ON s.id = n.session_id LEFT JOIN assets a ON a.filename = n.asset_filename
       WHERE n.id = ?`,
    ),
  };
}

const prepared = statementsOf(statements);

export const insertNode = (db: StudioDatabase, row: NodeRow): void => void prepared(db).insert.run(row);

/** A node and what it points at; undefined when unknown. */
export const findNode = (db: StudioDatabase, id: string): NodeView | undefined => prepared(db).view.get(id);

/** A node and, with `graph`, its session's graph replaced (replaceGraph), in one immediate transaction. */
export function recordNode(
  db: StudioDatabase,
  row: NodeRow,
  graph?: { readonly sessionId: string; readonly next: (current: SessionRow) => string | undefined },
): GraphReplacement | undefined {
  return db
    .transaction((): GraphReplacement | undefined => {
      insertNode(db, row);
      return graph ? replaceGraph(db, graph.sessionId, graph.next, row.created_at) : undefined;
    })
    .immediate();
}
