import type { Edge, Node, XYPosition } from '@xyflow/react';
// Imports carry .js: this module is also unit-tested under the root tsconfig (NodeNext).
import type { ErrorPayload } from '../../api/contract.js';
import type { GraphSnapshot, NodeGenerationResult } from './types.js';

// The graph as the editor holds it (xyflow nodes and edges) and as the server
// stores it (the session's snapshot), and the pure changes the view makes.
// Node data uses the fields `addToGraph` writes (prompt, filename, url,
// thumbnailUrl, provider, model), so nodes the CLI adds draw the same.

export interface ImageNodeData extends Record<string, unknown> {
  prompt?: string;
  filename?: string;
  url?: string;
  thumbnailUrl?: string;
  provider?: string;
  model?: string;
  /** The job that makes (or made) the node. */
  requestId?: string;
  /** Set while the job runs and when it failed; absent once the node has its image. */
  status?: 'running' | 'failed';
  error?: ErrorPayload;
}

export type ImageNode = Node<ImageNodeData, 'image'>;
export type GraphEdgeData = { kind?: 'edit' | 'reference' } & Record<string, unknown>;
export type FlowEdge = Edge<GraphEdgeData>;

/** Layout steps between nodes: a child goes one row below its parent, siblings side by side. */
export const COLUMN = 280;
export const ROW = 380;

/** The editor draws every node as an image card; a node saved with another `type` keeps it (by id). */
export type ForeignTypes = Readonly<Record<string, string>>;

export function foreignTypesOf(snapshot: GraphSnapshot): ForeignTypes {
  return Object.fromEntries(snapshot.nodes.flatMap((node) => (node.type && node.type !== 'image' ? [[node.id, node.type]] : [])));
}

export function toFlow(snapshot: GraphSnapshot): { nodes: ImageNode[]; edges: FlowEdge[]; foreignTypes: ForeignTypes } {
  return {
    foreignTypes: foreignTypesOf(snapshot),
    nodes: snapshot.nodes.map((node) => ({
      id: node.id,
      type: 'image',
      position: node.position,
      data: (node.data ?? {}) as ImageNodeData,
    })),
    edges: snapshot.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      data: { kind: edge.kind },
      className: `edge-${edge.kind ?? 'edit'}`,
    })),
  };
}

/** Only what the server keeps: no selection, sizes or other editor state (a viewport another client saved is kept as it was). */
export function toSnapshot(
  nodes: readonly ImageNode[],
  edges: readonly FlowEdge[],
  viewport?: GraphSnapshot['viewport'],
  foreignTypes: ForeignTypes = {},
): GraphSnapshot {
  return {
    ...(viewport ? { viewport } : {}),
    nodes: nodes.map((node) => ({
      id: node.id,
      type: foreignTypes[node.id] ?? 'image',
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
      data: node.data,
    })),
    edges: edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.data?.kind ? { kind: edge.data.kind } : {}),
    })),
  };
}

/** A new root goes right of the rightmost node, on the top row of the graph. */
export function rootPosition(nodes: readonly ImageNode[]): XYPosition {
  if (nodes.length === 0) return { x: 0, y: 0 };
  return { x: Math.max(...nodes.map((node) => node.position.x)) + COLUMN, y: Math.min(...nodes.map((node) => node.position.y)) };
}

/** A child goes below its parent, right of the children it already has. */
export function childPosition(parent: ImageNode, edges: readonly FlowEdge[]): XYPosition {
  const siblings = edges.filter((edge) => edge.source === parent.id).length;
  return { x: parent.position.x + siblings * COLUMN, y: parent.position.y + ROW };
}

export const editEdgeId = (nodeId: string): string => `edit-${nodeId}`;

/** The node of a job that has just started (its id is the requestId until the server names the node). */
export function pendingNode(requestId: string, prompt: string, position: XYPosition, provider?: string): ImageNode {
  return {
    id: requestId,
    type: 'image',
    position,
    data: { prompt, requestId, status: 'running', ...(provider ? { provider } : {}) },
    selected: false,
  };
}

export function editEdge(parentId: string, childId: string): FlowEdge {
  return { id: editEdgeId(childId), source: parentId, target: childId, data: { kind: 'edit' }, className: 'edge-edit' };
}

/** A finished job: its node takes the server's node id (so children can name it) and its image. */
export function finishNode(
  nodes: readonly ImageNode[],
  edges: readonly FlowEdge[],
  requestId: string,
  result: NodeGenerationResult,
): { nodes: ImageNode[]; edges: FlowEdge[] } {
  const nodeId = result.nodeId;
  const rename = (id: string) => (id === requestId ? nodeId : id);
  return {
    nodes: nodes.map((node) =>
      node.id === requestId
        ? {
            ...node,
            id: nodeId,
            data: {
              prompt: node.data.prompt ?? result.asset.prompt,
              filename: result.asset.filename,
              url: result.asset.url,
              thumbnailUrl: result.asset.thumbnailUrl,
              provider: result.provider,
              model: result.model,
              requestId,
            },
          }
        : node,
    ),
    edges: edges.map((edge) =>
      edge.source === requestId || edge.target === requestId
        ? {
            ...edge,
            id: edge.id === editEdgeId(requestId) ? editEdgeId(nodeId) : edge.id,
            source: rename(edge.source),
            target: rename(edge.target),
          }
        : edge,
    ),
  };
}

export function failNode(nodes: readonly ImageNode[], requestId: string, error: ErrorPayload): ImageNode[] {
  return nodes.map((node) => (node.id === requestId ? { ...node, data: { ...node.data, status: 'failed', error } } : node));
}

/** The nodes one side has that the other lacks, by id (the conflict dialog's summary). */
export function difference(
  mine: readonly { id: string }[],
  theirs: readonly { id: string }[],
): { onlyMine: string[]; onlyTheirs: string[] } {
  const mineIds = new Set(mine.map((node) => node.id));
  const theirIds = new Set(theirs.map((node) => node.id));
  return { onlyMine: [...mineIds].filter((id) => !theirIds.has(id)), onlyTheirs: [...theirIds].filter((id) => !mineIds.has(id)) };
}
