import { GRAPH_LIMITS, type GraphNode, type GraphPosition, type GraphSnapshot } from '../api/index.js';

// Where the server puts a node it adds to a graph (a node generation with
// addToGraph and no position): a child below its parent, beside the parent's
// other children; a root right of everything. A UI moves it as it likes.

/** Room a node takes, horizontally and vertically (a thumbnail card). */
export const NODE_SPACING = { x: 320, y: 360 } as const;

export function placeNode(graph: GraphSnapshot, parentId: string | null): GraphPosition {
  const parent = parentId ? graph.nodes.find((node) => node.id === parentId) : undefined;
  if (parent) {
    const siblings = graph.edges.filter((edge) => (edge.kind ?? 'edit') === 'edit' && edge.source === parent.id).length;
    return { x: parent.position.x + siblings * NODE_SPACING.x, y: parent.position.y + NODE_SPACING.y };
  }
  if (graph.nodes.length === 0) return { x: 0, y: 0 };
  return {
    x: Math.max(...graph.nodes.map((node) => node.position.x)) + NODE_SPACING.x,
    y: Math.min(...graph.nodes.map((node) => node.position.y)),
  };
}

/**
 * The graph with one more node (and its edit edge from the parent, when the
 * parent is drawn in it); undefined when it already has the node or has no
 * room for it (GRAPH_LIMITS), so the caller leaves the graph as it is.
 */
export function withNode(
  graph: GraphSnapshot,
  node: Omit<GraphNode, 'position'> & { position?: GraphPosition },
  parentId: string | null,
): GraphSnapshot | undefined {
  if (graph.nodes.some((existing) => existing.id === node.id)) return undefined;
  const parentDrawn = parentId !== null && graph.nodes.some((existing) => existing.id === parentId);
  if (graph.nodes.length + 1 > GRAPH_LIMITS.maxNodes || graph.edges.length + (parentDrawn ? 1 : 0) > GRAPH_LIMITS.maxEdges)
    return undefined;
  const edgeId = `edit-${node.id}`;
  if (parentDrawn && graph.edges.some((edge) => edge.id === edgeId)) return undefined;
  const added: GraphSnapshot = {
    ...graph,
    nodes: [...graph.nodes, { ...node, position: node.position ?? placeNode(graph, parentId) }],
    edges: parentDrawn ? [...graph.edges, { id: edgeId, source: parentId, target: node.id, kind: 'edit' }] : graph.edges,
  };
  return Buffer.byteLength(JSON.stringify(added), 'utf8') > GRAPH_LIMITS.maxGraphBytes ? undefined : added;
}
