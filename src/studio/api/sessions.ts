import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { API_LIMITS } from './values.js';

// Graph sessions: a titled session holding one graph snapshot (nodes with
// positions and data, edges), versioned for optimistic concurrency. A save
// replaces the whole snapshot and must name the version it was made from
// (`If-Match`); the server never merges two snapshots.

/** The bounds of a graph and its session, declared once: validation, errors and docs read them. */
export const GRAPH_LIMITS = {
  maxNodes: 1000,
  maxEdges: 2000,
  /** A node's `data` as JSON, UTF-8 bytes: room for the longest prompt plus what a UI keeps beside it. */
  maxNodeDataBytes: 128 * 1024,
  /** The whole snapshot as JSON, UTF-8 bytes. */
  maxGraphBytes: 8 * 1024 * 1024,
  /** Nesting of the whole snapshot (the snapshot 1, `nodes` 2, a node 3, its `data` 4): far under SQLite's JSON limit (1,000). */
  maxDepth: 32,
  /** Largest absolute coordinate of a position (and viewport offset). */
  maxCoordinate: 10_000_000,
  titleMaxChars: 200,
  /** A node's `type` (what a UI draws it as). */
  typeMaxChars: 64,
} as const;

/**
 * Ids of sessions, graph nodes and edges: printable, no spaces, no slash, at
 * most 64 characters. They travel in URL paths and are only ever database
 * keys, never joined into a file path.
 */
export const GRAPH_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:~-]{0,63}$/;
export const graphId = lazy(() => z.string().regex(GRAPH_ID_PATTERN));

/**
 * What an edge means. `edit`: the target was made by editing the source's
 * image (a child of its parent); these edges form a tree, so a node has at
 * most one `edit` parent. `reference`: the source's image guided the target.
 */
export const EDGE_KINDS = ['edit', 'reference'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

const coordinate = lazy(() => z.number().finite().min(-GRAPH_LIMITS.maxCoordinate).max(GRAPH_LIMITS.maxCoordinate));
export const graphPosition = lazy(() => z.object({ x: coordinate, y: coordinate }).strict());

export const graphNode = lazy(() =>
  z
    .object({
      id: graphId,
      /** What a UI draws it as (e.g. `image`, `prompt`); the server does not interpret it. */
      type: z.string().min(1).max(GRAPH_LIMITS.typeMaxChars).optional(),
      position: graphPosition,
      /** The UI's own data for the node (a prompt, an image file name, …), at most maxNodeDataBytes as JSON. */
      data: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
);

export const graphEdge = lazy(() =>
  z
    .object({
      id: graphId,
      source: graphId,
      target: graphId,
      kind: z.enum(EDGE_KINDS).optional(),
    })
    .strict(),
);

/** PUT /api/sessions/:id/graph: the whole snapshot. */
export const graphSnapshot = lazy(() =>
  z
    .object({
      nodes: z.array(graphNode),
      edges: z.array(graphEdge),
      /** Where the UI's view was (pan and zoom), kept as is. */
      viewport: z
        .object({ x: coordinate, y: coordinate, zoom: z.number().finite().positive().max(1000) })
        .strict()
        .optional(),
    })
    .strict(),
);

export type GraphPosition = z.infer<typeof graphPosition>;
export type GraphNode = z.infer<typeof graphNode>;
export type GraphEdge = z.infer<typeof graphEdge>;
export type GraphSnapshot = z.infer<typeof graphSnapshot>;

const title = lazy(() => z.string().trim().min(1).max(GRAPH_LIMITS.titleMaxChars));

/** POST /api/sessions */
export const createSessionRequest = lazy(() => z.object({ title }).strict());
/** PATCH /api/sessions/:id (rename) */
export const renameSessionRequest = lazy(() => z.object({ title }).strict());
/** GET /api/sessions (other query parameters, like a reader's `?token=`, are ignored). */
export const sessionsQuery = lazy(() =>
  z.object({
    limit: z.coerce.number().int().min(1).max(API_LIMITS.historyPageMax).optional(),
    cursor: z.string().min(1).max(1024).optional(),
  }),
);
/** Route parameters that name a session. */
export const sessionIdParam = lazy(() => z.object({ id: graphId }));

export type CreateSessionRequest = z.infer<typeof createSessionRequest>;
export type RenameSessionRequest = z.infer<typeof renameSessionRequest>;

/** A session as lists show it. `version` is its graph's version (also the `ETag`). */
export const sessionSummary = lazy(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    version: z.number().int().positive(),
    nodeCount: z.number().int(),
    edgeCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type SessionSummary = z.infer<typeof sessionSummary>;

/** GET /api/sessions/:id: the session and its graph. */
export const sessionBody = lazy(() => sessionSummary.extend({ graph: graphSnapshot }));
export type SessionBody = z.infer<typeof sessionBody>;

/** GET /api/sessions/:id/graph: the graph alone, with its version. */
export const versionedGraph = lazy(() => graphSnapshot.extend({ version: z.number().int().positive() }));
export type VersionedGraph = z.infer<typeof versionedGraph>;

/** GET /api/sessions */
export const sessionsPage = lazy(() => z.object({ sessions: z.array(sessionSummary), nextCursor: z.string().nullable() }));
export type SessionsPage = z.infer<typeof sessionsPage>;

/** PUT /api/sessions/:id/graph: the saved version. */
export const graphSaved = lazy(() =>
  z.object({
    id: z.string(),
    version: z.number().int().positive(),
    nodeCount: z.number().int(),
    edgeCount: z.number().int(),
    updatedAt: z.string(),
  }),
);
export type GraphSaved = z.infer<typeof graphSaved>;

/** DELETE /api/sessions/:id */
export const sessionDeleted = lazy(() => z.object({ id: z.string(), title: z.string(), deletedAt: z.string() }));
export type SessionDeleted = z.infer<typeof sessionDeleted>;
