import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import type { GraphSaved, GraphSnapshot, SessionBody, SessionDeleted, SessionsPage, SessionSummary, VersionedGraph } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { SessionRow } from '../store/sessions.js';
import { describeIfMatch, etagOf, ifMatchHolds, parseIfMatch, type IfMatch } from './preconditions.js';
import { EMPTY_GRAPH, validateGraph } from './validate.js';

// Graph sessions: create, list, load, rename, delete, and the one way a graph
// changes from outside — a whole snapshot saved against the version it was
// made from. Saves never merge: a stale version is refused with the current
// snapshot, and the client decides what to keep.

const now = () => new Date().toISOString();

const EMPTY_GRAPH_JSON = JSON.stringify(EMPTY_GRAPH);

/** The stored snapshot (written by this module only, so it is trusted as is). */
const graphOf = (row: SessionRow): GraphSnapshot => JSON.parse(row.graph) as GraphSnapshot;

function summaryOf(row: SessionRow, graph: GraphSnapshot = graphOf(row)): SessionSummary {
  return {
    id: row.id,
    title: row.title,
    version: row.version,
    nodeCount: graph.nodes.length,
    edgeCount: graph.edges.length,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const bodyOf = (row: SessionRow): SessionBody => {
  const graph = graphOf(row);
  return { ...summaryOf(row, graph), graph };
};

/** SESSION_NOT_FOUND for an id whose row is absent or deleted (then saying when). */
function missingSession(id: string, row: SessionRow | undefined, field?: string): ServiceError {
  const where = field ? { field } : {};
  if (row)
    return new ServiceError('SESSION_NOT_FOUND', `The session "${row.title}" (${id}) was deleted.`, {
      details: { id, ...where, deletedAt: row.deleted_at },
    });
  return new ServiceError('SESSION_NOT_FOUND', `No session with id "${id}".`, { details: { id, ...where } });
}

/** A session that is there; SESSION_NOT_FOUND otherwise (`field`: the request field that named it). */
export async function liveSession(ctx: StudioContext, id: string, field?: string): Promise<SessionRow> {
  const row = await ctx.store.graphSessions.find(id);
  if (row && row.deleted_at === null) return row;
  throw missingSession(id, row, field);
}

export async function createSession(ctx: StudioContext, title: string): Promise<SessionBody> {
  const at = now();
  const row: SessionRow = {
    id: randomUUID(),
    title,
    version: 1,
    graph: EMPTY_GRAPH_JSON,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
  await ctx.store.graphSessions.insert(row);
  return bodyOf(row);
}

const sessionsCursor = lazy(() => z.object({ m: z.literal('sessions'), c: z.string(), i: z.string() }));

/** Live sessions, newest first, a page at a time. */
export async function listSessions(ctx: StudioContext, options: { limit: number; cursor?: string }): Promise<SessionsPage> {
  const after = options.cursor ? decodeCursor(options.cursor, sessionsCursor) : undefined;
  // One extra row tells whether another page exists.
  const rows = await ctx.store.graphSessions.listLive({ limit: options.limit + 1, after: after && { createdAt: after.c, id: after.i } });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    sessions: page.map((row) => ({
      id: row.id,
      title: row.title,
      version: row.version,
      nodeCount: row.node_count,
      edgeCount: row.edge_count,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })),
    nextCursor: rows.length > options.limit && last ? encodeCursor({ m: 'sessions', c: last.created_at, i: last.id }) : null,
  };
}

export const getSession = async (ctx: StudioContext, id: string): Promise<SessionBody> => bodyOf(await liveSession(ctx, id));

export async function getGraph(ctx: StudioContext, id: string): Promise<VersionedGraph> {
  const row = await liveSession(ctx, id);
  return { ...graphOf(row), version: row.version };
}

/** Renames a session; its graph and version are untouched (a rename never makes a held graph stale). */
export async function renameSession(ctx: StudioContext, id: string, title: string): Promise<SessionSummary> {
  if (!(await ctx.store.graphSessions.rename(id, title, now()))) throw missingSession(id, await ctx.store.graphSessions.find(id));
  return summaryOf(await liveSession(ctx, id));
}

/**
 * Deletes a session: its graph goes, its row stays (title and deletedAt) so
 * the images it made keep saying where they came from; history groups them
 * under it with `sessionDeleted: true`. Deleting again answers the same.
 */
export async function deleteSession(ctx: StudioContext, id: string): Promise<SessionDeleted> {
  const row = await ctx.store.graphSessions.find(id);
  if (!row) throw new ServiceError('SESSION_NOT_FOUND', `No session with id "${id}".`, { details: { id } });
  if (row.deleted_at === null && !(await ctx.store.graphSessions.markDeleted(id, EMPTY_GRAPH_JSON, now()))) return deleteSession(ctx, id);
  const deleted = (await ctx.store.graphSessions.find(id)) as SessionRow;
  return { id, title: deleted.title, deletedAt: deleted.deleted_at as string };
}

/** The 412 answer: the version the server has and its snapshot, so the client can rebase without another read. */
function conflict(row: SessionRow, condition: IfMatch): ServiceError {
  return new ServiceError(
    'GRAPH_VERSION_CONFLICT',
    `The graph was saved against a stale version (If-Match ${describeIfMatch(condition)}); the current version is ${row.version}. Reload it, reapply your change and save with If-Match ${etagOf(row.version)}.`,
    {
      details: { version: row.version, ifMatch: describeIfMatch(condition), graph: graphOf(row) },
      headers: { etag: etagOf(row.version) },
    },
  );
}

/**
 * Saves a whole snapshot. The order is HTTP's: the session must exist (404),
 * the precondition must be there (428) and hold (412) before the body is
 * looked at (400, 413); then the compare-and-swap runs in one transaction, so
 * of two saves made from the same version exactly one lands.
 */
export async function saveGraph(
  ctx: StudioContext,
  id: string,
  ifMatchHeader: string | string[] | undefined,
  body: unknown,
): Promise<GraphSaved> {
  const current = await liveSession(ctx, id);
  const condition = parseIfMatch(ifMatchHeader);
  if (!condition) {
    throw new ServiceError(
      'GRAPH_VERSION_REQUIRED',
      `Saving a graph needs If-Match with the version it was made from, e.g. If-Match: ${etagOf(current.version)} (the ETag of GET /api/sessions/${id}).`,
      {
        details: { header: 'If-Match' },
      },
    );
  }
  if (!ifMatchHolds(condition, current.version)) throw conflict(current, condition);
  const graph = validateGraph(body);
  const outcome = await ctx.store.graphSessions.replaceGraph(
    id,
    (row) => (ifMatchHolds(condition, row.version) ? JSON.stringify(graph) : undefined),
    now(),
  );
  // Deleted since the first read (by another process sharing the database).
  if (outcome.outcome === 'missing') throw missingSession(id, outcome.row);
  if (outcome.outcome === 'kept') throw conflict(outcome.row, condition);
  const { row } = outcome;
  return { id, version: row.version, nodeCount: graph.nodes.length, edgeCount: graph.edges.length, updatedAt: row.updated_at };
}
