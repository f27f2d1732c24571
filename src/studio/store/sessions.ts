import { statementsOf, type StudioDatabase } from './database.js';

// The sessions table (migration 6): one row per graph session, its graph
// snapshot as JSON and the snapshot's version. A deleted session keeps its row
// (title, deleted_at) with an empty graph, so the images it made can still
// say which session they came from. SQL stays here, behind these functions.

export interface SessionRow {
  id: string;
  title: string;
  version: number;
  /** The graph snapshot, JSON. */
  graph: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** A session as lists show it: no graph, its counts. */
export type SessionListRow = Omit<SessionRow, 'graph' | 'deleted_at'> & { node_count: number; edge_count: number };

/** Position after which a newest-first page of sessions continues. */
export interface SessionPosition {
  createdAt: string;
  id: string;
}

// A row SQLite cannot read as JSON (nested past its depth limit by an older build, edited by hand)
// counts 0 instead of failing the whole list: one bad row never takes the list down.
const COUNTS = `CASE WHEN json_valid(graph) THEN json_array_length(graph, '$.nodes') ELSE 0 END AS node_count, CASE WHEN json_valid(graph) THEN json_array_length(graph, '$.edges') ELSE 0 END AS edge_count`;

function statements(db: StudioDatabase) {
  return {
    insert: db.prepare<Omit<SessionRow, 'deleted_at'>>(
      'INSERT INTO sessions (id, title, version, graph, created_at, updated_at) VALUES (@id, @title, @version, @graph, @created_at, @updated_at)',
    ),
    byId: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?'),
    live: db.prepare<{ limit: number; createdAt: string | null; id: string | null }, SessionListRow>(
      `SELECT id, title, version, created_at, updated_at, ${COUNTS} FROM sessions
       WHERE deleted_at IS NULL AND (@createdAt IS NULL OR created_at < @createdAt OR (created_at = @createdAt AND id < @id))
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ),
    rename: db.prepare<{ id: string; title: string; at: string }>(
      'UPDATE sessions SET title = @title, updated_at = @at WHERE id = @id AND deleted_at IS NULL',
    ),
    // The graph goes with the session; the row stays so its images keep a title to be grouped under.
    markDeleted: db.prepare<{ id: string; graph: string; at: string }>(
      'UPDATE sessions SET deleted_at = @at, graph = @graph, updated_at = @at WHERE id = @id AND deleted_at IS NULL',
    ),
    setGraph: db.prepare<{ id: string; graph: string; at: string; version: number }>(
      'UPDATE sessions SET graph = @graph, version = version + 1, updated_at = @at WHERE id = @id AND version = @version AND deleted_at IS NULL',
    ),
  };
}

const prepared = statementsOf(statements);

export const insertSession = (db: StudioDatabase, row: Omit<SessionRow, 'deleted_at'>): void => void prepared(db).insert.run(row);

/** A session's row, live or deleted. */
export const findSession = (db: StudioDatabase, id: string): SessionRow | undefined => prepared(db).byId.get(id);

/** Live sessions, newest first, after a position. */
export const listLiveSessions = (db: StudioDatabase, options: { limit: number; after?: SessionPosition }): SessionListRow[] =>
  prepared(db).live.all({ limit: options.limit, createdAt: options.after?.createdAt ?? null, id: options.after?.id ?? null });

/** Renames a live session; false when there is none. */
export const renameSession = (db: StudioDatabase, id: string, title: string, at: string): boolean =>
  prepared(db).rename.run({ id, title, at }).changes === 1;

/** Deletes a live session (its graph becomes `emptyGraph`); false when there is none. */
export const markSessionDeleted = (db: StudioDatabase, id: string, emptyGraph: string, at: string): boolean =>
  prepared(db).markDeleted.run({ id, graph: emptyGraph, at }).changes === 1;

/** How a graph replacement ended. */
export type GraphReplacement =
  | { readonly outcome: 'replaced'; readonly row: SessionRow }
  | { readonly outcome: 'kept'; readonly row: SessionRow }
  | { readonly outcome: 'missing'; readonly row: SessionRow | undefined };

/**
 * Compare-and-swap of a live session's graph, in one immediate transaction
 * (the write lock is taken before the read, so no other writer, in this
 * process or another, comes between them): `next` sees the current row and
 * answers the new graph's JSON, or undefined to keep it. The version goes up
 * by one with each replacement.
 */
export function replaceGraph(
  db: StudioDatabase,
  id: string,
  next: (current: SessionRow) => string | undefined,
  at: string,
): GraphReplacement {
  const s = prepared(db);
  return db
    .transaction((): GraphReplacement => {
      const current = s.byId.get(id);
      if (!current || current.deleted_at !== null) return { outcome: 'missing', row: current };
      const graph = next(current);
      if (graph === undefined) return { outcome: 'kept', row: current };
      // The version condition repeats the read's: a replacement never lands on a version it did not see.
      if (s.setGraph.run({ id, graph, at, version: current.version }).changes !== 1)
        return { outcome: 'kept', row: s.byId.get(id) as SessionRow };
      return { outcome: 'replaced', row: { ...current, graph, version: current.version + 1, updated_at: at } };
    })
    .immediate();
}
