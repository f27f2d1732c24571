import { ServiceError } from '../errors.js';
import { brokenJsonBound, jsonBoundMessage } from '../../common/json-bounds.js';
import { parseWith } from '../../common/validation.js';
import { GRAPH_ID_PATTERN, GRAPH_LIMITS, graphSnapshot, type GraphEdge, type GraphSnapshot } from '../api/index.js';

// A graph snapshot is checked whole before it is stored: its size first (a
// huge body costs nothing more than counting; its depth by an iterative walk
// before anything recursive), then its shape, then what a
// shape cannot say — unique ids, edges between nodes that exist, at most one
// edit parent per node, no cycles.

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');

const tooLarge = (message: string, details: Record<string, unknown>): ServiceError =>
  new ServiceError('GRAPH_TOO_LARGE', message, { details });
const invalid = (message: string, details: Record<string, unknown>): ServiceError =>
  new ServiceError('GRAPH_INVALID', message, { details });

/** Counts and bytes, on the raw body (before its shape is known to be right). */
function checkSize(raw: unknown): void {
  const body = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  for (const [field, max] of [
    ['nodes', GRAPH_LIMITS.maxNodes],
    ['edges', GRAPH_LIMITS.maxEdges],
  ] as const) {
    const list = body[field];
    if (Array.isArray(list) && list.length > max)
      throw tooLarge(`A graph holds at most ${max} ${field}; this one has ${list.length}.`, { field, max, got: list.length });
  }
  // Depth before bytes: serializing is a recursive walk.
  const broken = brokenJsonBound(raw, { maxDepth: GRAPH_LIMITS.maxDepth });
  if (broken) throw tooLarge(jsonBoundMessage('The graph', broken), { field: broken.path, bound: 'depth', max: GRAPH_LIMITS.maxDepth });
  const bytes = jsonBytes(raw);
  if (bytes > GRAPH_LIMITS.maxGraphBytes)
    throw tooLarge(`A graph is at most ${GRAPH_LIMITS.maxGraphBytes} bytes as JSON; this one is ${bytes}.`, {
      max: GRAPH_LIMITS.maxGraphBytes,
      got: bytes,
    });
}

/** Each id once. */
function checkUnique(ids: readonly string[], field: 'nodes' | 'edges'): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) throw invalid(`${field}[${index}].id "${id}" is used twice.`, { field: `${field}.${index}.id`, id });
    seen.add(id);
  });
}

/** Edges join two different nodes that exist; one edit parent per node; no two edges alike. */
function checkEdges(nodeIds: ReadonlySet<string>, edges: readonly GraphEdge[]): void {
  const editParent = new Map<string, string>();
  const pairs = new Set<string>();
  edges.forEach((edge, index) => {
    for (const end of ['source', 'target'] as const) {
      if (!nodeIds.has(edge[end]))
        throw invalid(`edges[${index}].${end} names node "${edge[end]}", which is not in the graph.`, {
          field: `edges.${index}.${end}`,
          id: edge[end],
        });
    }
    if (edge.source === edge.target)
      throw invalid(`edges[${index}] joins node "${edge.source}" to itself.`, { field: `edges.${index}`, id: edge.source });
    const kind = edge.kind ?? 'edit';
    const pair = JSON.stringify([kind, edge.source, edge.target]);
    if (pairs.has(pair))
      throw invalid(`edges[${index}] repeats a ${kind} edge from "${edge.source}" to "${edge.target}".`, { field: `edges.${index}` });
    pairs.add(pair);
    if (kind === 'edit') {
      const parent = editParent.get(edge.target);
      if (parent !== undefined) {
        throw invalid(`Node "${edge.target}" has two edit parents ("${parent}" and "${edge.source}"); the edits form a tree.`, {
          field: `edges.${index}.target`,
          id: edge.target,
        });
      }
      editParent.set(edge.target, edge.source);
    }
  });
}

/**
 * A cycle through the edges, as the node ids along it, or undefined. Depth
 * first with an explicit stack (a long chain of edits cannot overflow the
 * call stack).
 */
export function findCycle(nodeIds: readonly string[], edges: readonly Pick<GraphEdge, 'source' | 'target'>[]): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const { source, target } of edges) {
    const targets = next.get(source);
    if (targets) targets.push(target);
    else next.set(source, [target]);
  }
  // 1: on the current path, 2: done.
  const state = new Map<string, 1 | 2>();
  for (const start of nodeIds) {
    if (state.has(start)) continue;
    const path: string[] = [start];
    const cursors: number[] = [0];
    state.set(start, 1);
    while (path.length) {
      const node = path[path.length - 1];
      const targets = next.get(node) ?? [];
      const position = cursors[cursors.length - 1];
      if (position >= targets.length) {
        state.set(node, 2);
        path.pop();
        cursors.pop();
        continue;
      }
      cursors[cursors.length - 1] = position + 1;
      const target = targets[position];
      const seen = state.get(target);
      if (seen === 1) return [...path.slice(path.indexOf(target)), target];
      if (seen === undefined) {
        state.set(target, 1);
        path.push(target);
        cursors.push(0);
      }
    }
  }
  return undefined;
}

/** Parses and checks a snapshot; throws the answer (GRAPH_TOO_LARGE, BAD_REQUEST, GRAPH_INVALID). */
export function validateGraph(raw: unknown): GraphSnapshot {
  checkSize(raw);
  const graph = parseWith(graphSnapshot, raw, { hints: { id: { pattern: GRAPH_ID_PATTERN.source } } });
  graph.nodes.forEach((node, index) => {
    const bytes = jsonBytes(node.data);
    if (bytes > GRAPH_LIMITS.maxNodeDataBytes) {
      throw tooLarge(`nodes[${index}].data is ${bytes} bytes as JSON; at most ${GRAPH_LIMITS.maxNodeDataBytes}.`, {
        field: `nodes.${index}.data`,
        max: GRAPH_LIMITS.maxNodeDataBytes,
        got: bytes,
      });
    }
  });
  checkUnique(
    graph.nodes.map((node) => node.id),
    'nodes',
  );
  checkUnique(
    graph.edges.map((edge) => edge.id),
    'edges',
  );
  const nodeIds = graph.nodes.map((node) => node.id);
  checkEdges(new Set(nodeIds), graph.edges);
  const cycle = findCycle(nodeIds, graph.edges);
  if (cycle) throw invalid(`The edges form a cycle: ${cycle.join(' → ')}.`, { field: 'edges', cycle });
  return graph;
}

/** An empty graph: what a new session starts with. */
export const EMPTY_GRAPH: GraphSnapshot = { nodes: [], edges: [] };
