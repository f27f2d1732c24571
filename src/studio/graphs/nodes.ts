import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors.js';
import {
  GRAPH_LIMITS,
  type GenerationResult,
  type NodeJobSpec,
  type GraphPosition,
  type GraphSnapshot,
  type NodeGenerationResult,
  type NodeRecord,
} from '../api/index.js';
import { assetUrl, thumbnailUrl } from '../assets.js';
import type { StudioContext } from '../context.js';
import type { Operation } from '../jobs/plan.js';
import type { NodeView } from '../store/nodes.js';
import type { SessionRow } from '../store/sessions.js';
import { withNode } from './layout.js';
import { liveSession } from './sessions.js';

// Nodes: what a node generation needs before its job starts (its parent, its
// session, a fresh id), what it records once its image is saved (the node
// row, and the node in the session's graph when the client asked), and the
// stored node as GET /api/node/:nodeId answers it.

export interface NodePlan {
  readonly spec: NodeJobSpec;
  /** A child's parent: its image is the edit input. */
  readonly parent?: NodeView;
}

/**
 * Checks where a node goes, before anything else of the job is planned: the
 * parent exists and its image is still in history, the session is there (a
 * child's is its parent's), and a node to be added to the graph has a graph
 * with room for it.
 */
export async function planNode(
  ctx: StudioContext,
  request: { sessionId?: string; parentNodeId?: string; addToGraph?: boolean; position?: GraphPosition },
): Promise<NodePlan> {
  const parent = request.parentNodeId !== undefined ? await ctx.store.nodes.find(request.parentNodeId) : undefined;
  if (request.parentNodeId !== undefined && !parent) {
    throw new ServiceError('NODE_NOT_FOUND', `No node with id "${request.parentNodeId}" to edit.`, {
      details: { field: 'parentNodeId', nodeId: request.parentNodeId },
    });
  }
  if (parent && (parent.asset_id === null || parent.asset_deleted_at !== null)) {
    throw new ServiceError(
      'REFERENCE_NOT_FOUND',
      `The image of node ${parent.id} (${parent.asset_filename}) is no longer in history${parent.asset_id === null ? '' : ': restore it to edit it'}.`,
      {
        details: { field: 'parentNodeId', nodeId: parent.id, filename: parent.asset_filename },
      },
    );
  }
  if (parent && request.sessionId !== undefined && parent.session_id !== request.sessionId) {
    throw new ServiceError(
      'BAD_REQUEST',
      `A child is made in its parent's session: node ${parent.id} belongs to ${parent.session_id === null ? 'no session' : `session ${parent.session_id}`}.`,
      {
        details: { field: 'sessionId', valid: parent.session_id },
      },
    );
  }
  const sessionId = request.sessionId ?? parent?.session_id ?? null;
  const session =
    sessionId !== null ? await liveSession(ctx, sessionId, request.sessionId !== undefined ? 'sessionId' : 'parentNodeId') : undefined;
  if (request.addToGraph && !session)
    throw new ServiceError('BAD_REQUEST', 'addToGraph: the node needs a session whose graph it joins (sessionId).', {
      details: { field: 'addToGraph' },
    });
  if (request.position && !request.addToGraph)
    throw new ServiceError('BAD_REQUEST', 'position: only a node added to the graph (addToGraph: true) has one.', {
      details: { field: 'position' },
    });
  if (request.addToGraph && session) {
    const nodes = (JSON.parse(session.graph) as GraphSnapshot).nodes.length;
    if (nodes >= GRAPH_LIMITS.maxNodes) {
      throw new ServiceError('GRAPH_TOO_LARGE', `The session's graph already holds ${nodes} nodes, the most it can.`, {
        details: { field: 'addToGraph', max: GRAPH_LIMITS.maxNodes, got: nodes },
      });
    }
  }
  return {
    spec: {
      nodeId: randomUUID(),
      sessionId,
      parentNodeId: parent?.id ?? null,
      addToGraph: request.addToGraph === true,
      ...(request.position ? { position: request.position } : {}),
    },
    parent,
  };
}

/** The session an image of this node is linked to, with the title it has now (also after a delete). */
export async function sessionLinkOf(ctx: StudioContext, spec: NodeJobSpec): Promise<{ id: string; title: string } | undefined> {
  if (spec.sessionId === null) return undefined;
  const row = await ctx.store.graphSessions.find(spec.sessionId);
  return row ? { id: row.id, title: row.title } : undefined;
}

/**
 * Records a node whose image was saved: the node row and, when asked, the
 * node in its session's graph (one more version), in one transaction. A
 * session deleted meanwhile, or a graph that filled up, leaves the graph out
 * (`addedToGraph: false`); the node and its image stand either way.
 */
export async function recordNode(
  ctx: StudioContext,
  spec: NodeJobSpec,
  operation: Operation,
  result: GenerationResult,
): Promise<NodeGenerationResult> {
  const asset = result.images[0];
  const at = new Date().toISOString();
  const node = {
    id: spec.nodeId,
    type: 'image',
    ...(spec.position ? { position: spec.position } : {}),
    data: {
      prompt: asset.prompt,
      filename: asset.filename,
      url: asset.url,
      thumbnailUrl: asset.thumbnailUrl,
      provider: result.provider,
      model: result.model,
    },
  };
  const graph =
    spec.addToGraph && spec.sessionId !== null
      ? {
          sessionId: spec.sessionId,
          next: (row: SessionRow) => {
            const next = withNode(JSON.parse(row.graph) as GraphSnapshot, node, spec.parentNodeId);
            return next && JSON.stringify(next);
          },
        }
      : undefined;
  const outcome = await ctx.store.nodes.record(
    {
      id: spec.nodeId,
      session_id: spec.sessionId,
      parent_id: spec.parentNodeId,
      request_id: result.requestId,
      operation,
      prompt: asset.prompt,
      revised_prompt: result.revisedPrompt ?? null,
      lane: result.provider,
      model: result.model,
      settings: JSON.stringify(result.settings),
      asset_filename: asset.filename,
      created_at: at,
    },
    graph,
  );
  const graphVersion = outcome?.outcome === 'replaced' ? outcome.row.version : null;
  return {
    ...result,
    nodeId: spec.nodeId,
    parentNodeId: spec.parentNodeId,
    sessionId: spec.sessionId,
    asset,
    addedToGraph: graphVersion !== null,
    graphVersion,
  };
}

/** GET /api/node/:nodeId */
export async function getNode(ctx: StudioContext, nodeId: string): Promise<NodeRecord> {
  const row = await ctx.store.nodes.find(nodeId);
  if (!row) throw new ServiceError('NODE_NOT_FOUND', `No node with id "${nodeId}".`, { details: { nodeId } });
  return {
    nodeId: row.id,
    operation: row.operation,
    parentNodeId: row.parent_id,
    session:
      row.session_id === null ? null : { id: row.session_id, title: row.session_title ?? '', deleted: row.session_deleted_at !== null },
    requestId: row.request_id,
    prompt: row.prompt,
    revisedPrompt: row.revised_prompt,
    provider: row.lane,
    model: row.model,
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    asset: {
      filename: row.asset_filename,
      url: assetUrl(row.asset_filename),
      thumbnailUrl: thumbnailUrl(row.asset_filename),
      state: row.asset_id === null ? 'purged' : row.asset_deleted_at !== null ? 'deleted' : 'live',
    },
    createdAt: row.created_at,
  };
}
