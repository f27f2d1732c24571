import type { QueryClient } from '@tanstack/react-query';
import { applyEdgeChanges, applyNodeChanges, type EdgeChange, type NodeChange, type XYPosition } from '@xyflow/react';
import { create } from 'zustand';
import type { ErrorPayload } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { LIVE_JOBS_KEY, type LiveJob } from '../../live/liveJobs';
import { readJob } from '../../live/sync';
import { readGraph, saveGraph, type GraphConflict } from './graphApi';
import { failNode, finishNode, toFlow, toSnapshot, type FlowEdge, type ForeignTypes, type ImageNode } from './graphModel';
import type { GraphSnapshot, NodeGenerationResult } from './types';

// The open session's graph: the editor's nodes and edges, the version they
// were made from, and the save loop. Every change that the server keeps
// (a node added or finished, a move, a delete) bumps `changeSeq` and is saved
// at once with If-Match; one save runs at a time and the next carries every
// change made meanwhile. A 412 stops saving until the person chooses: the
// server's graph (reload) or theirs (overwrite). Nothing is dropped silently.

/** One layout move: the dragged nodes' positions before and after (undo/redo). */
export interface Move {
  positions: Array<{ id: string; from: XYPosition; to: XYPosition }>;
}

const UNDO_MAX = 100;

interface GraphState {
  sessionId?: string;
  version?: number;
  nodes: ImageNode[];
  edges: FlowEdge[];
  /** The snapshot's viewport, written back as it came (this view does not save pans and zooms). */
  viewport?: GraphSnapshot['viewport'];
  foreignTypes: ForeignTypes;
  loading: boolean;
  loadError?: ErrorPayload;
  saving: boolean;
  /** Changes made and changes saved: unsaved work while they differ. */
  changeSeq: number;
  savedSeq: number;
  conflict?: GraphConflict;
  saveError?: ErrorPayload;
  undo: Move[];
  redo: Move[];
  /** Nodes to bring into view (a node just started and its parent). */
  focus?: string[];

  open(sessionId: string | undefined): Promise<void>;
  setFocus(ids: string[]): void;
  /** Editor-only changes (selection, sizes, positions while dragging): not saved by themselves. */
  onNodesChange(changes: NodeChange<ImageNode>[]): void;
  onEdgesChange(changes: EdgeChange<FlowEdge>[]): void;
  /** A change the server keeps: applied, then saved. */
  commit(change: (graph: { nodes: ImageNode[]; edges: FlowEdge[] }) => { nodes: ImageNode[]; edges: FlowEdge[] }): void;
  recordMove(move: Move): void;
  undoMove(): void;
  redoMove(): void;
  flush(): Promise<void>;
  /** Conflict: take the server's graph (the changes made here since the last save go). */
  takeTheirs(): void;
  /** Conflict: save this page's graph over the server's version. */
  keepMine(): void;
}

const positionsOf = (nodes: ImageNode[], positions: Map<string, XYPosition>): ImageNode[] =>
  nodes.map((node) => {
    const position = positions.get(node.id);
    return position ? { ...node, position } : node;
  });

export const useGraph = create<GraphState>((set, get) => ({
  nodes: [],
  edges: [],
  foreignTypes: {},
  loading: false,
  saving: false,
  changeSeq: 0,
  savedSeq: 0,
  undo: [],
  redo: [],

  async open(sessionId) {
    set({
      sessionId,
      version: undefined,
      nodes: [],
      edges: [],
      viewport: undefined,
      foreignTypes: {},
      loading: sessionId !== undefined,
      loadError: undefined,
      conflict: undefined,
      saveError: undefined,
      changeSeq: 0,
      savedSeq: 0,
      undo: [],
      redo: [],
      saving: false,
      focus: undefined,
    });
    if (!sessionId) return;
    try {
      const { version, ...snapshot } = await readGraph(sessionId);
      if (get().sessionId !== sessionId) return;
      set({ ...toFlow(snapshot), viewport: snapshot.viewport, version, loading: false });
    } catch (error) {
      if (get().sessionId === sessionId) set({ loading: false, loadError: toErrorPayload(error) });
    }
  },

  setFocus(ids: string[]) {
    set({ focus: ids });
  },

  onNodesChange(changes) {
    const removed = new Set(changes.flatMap((change) => (change.type === 'remove' ? [change.id] : [])));
    if (removed.size === 0) {
      set({ nodes: applyNodeChanges(changes, get().nodes) });
      return;
    }
    // A delete (the Delete key): the node's edges go with it, and it is saved.
    get().commit(({ nodes, edges }) => ({
      nodes: applyNodeChanges(changes, nodes),
      edges: edges.filter((edge) => !removed.has(edge.source) && !removed.has(edge.target)),
    }));
  },

  onEdgesChange(changes) {
    const saved = changes.some((change) => change.type === 'remove');
    if (saved) get().commit(({ nodes, edges }) => ({ nodes, edges: applyEdgeChanges(changes, edges) }));
    else set({ edges: applyEdgeChanges(changes, get().edges) });
  },

  commit(change) {
    const { nodes, edges, changeSeq } = get();
    set({ ...change({ nodes, edges }), changeSeq: changeSeq + 1 });
    void get().flush();
  },

  recordMove(move) {
    if (move.positions.every((entry) => entry.from.x === entry.to.x && entry.from.y === entry.to.y)) return;
    set((state) => ({ undo: [...state.undo, move].slice(-UNDO_MAX), redo: [] }));
    get().commit((graph) => graph);
  },

  undoMove() {
    const move = get().undo.at(-1);
    if (!move) return;
    set((state) => ({ undo: state.undo.slice(0, -1), redo: [...state.redo, move] }));
    get().commit(({ nodes, edges }) => ({
      nodes: positionsOf(nodes, new Map(move.positions.map((entry) => [entry.id, entry.from]))),
      edges,
    }));
  },

  redoMove() {
    const move = get().redo.at(-1);
    if (!move) return;
    set((state) => ({ redo: state.redo.slice(0, -1), undo: [...state.undo, move] }));
    get().commit(({ nodes, edges }) => ({
      nodes: positionsOf(nodes, new Map(move.positions.map((entry) => [entry.id, entry.to]))),
      edges,
    }));
  },

  async flush() {
    const state = get();
    if (!state.sessionId || state.version === undefined || state.saving || state.conflict || state.changeSeq === state.savedSeq) return;
    const { sessionId, changeSeq } = state;
    set({ saving: true });
    const outcome = await saveGraph(sessionId, state.version, toSnapshot(state.nodes, state.edges, state.viewport, state.foreignTypes));
    if (get().sessionId !== sessionId) return;
    if (outcome.ok) {
      set({ saving: false, version: outcome.saved.version, savedSeq: changeSeq, saveError: undefined });
      // Changes made while this save ran go in the next one.
      void get().flush();
    } else if ('conflict' in outcome) {
      set({ saving: false, conflict: outcome.conflict });
    } else {
      set({ saving: false, saveError: outcome.error });
    }
  },

  takeTheirs() {
    const { conflict, changeSeq } = get();
    if (!conflict) return;
    set({
      ...toFlow(conflict.graph),
      viewport: conflict.graph.viewport,
      version: conflict.version,
      conflict: undefined,
      saveError: undefined,
      savedSeq: changeSeq,
      undo: [],
      redo: [],
    });
  },

  keepMine() {
    const { conflict } = get();
    if (!conflict) return;
    // Saved against the version the server showed: a newer change since then asks again.
    set({ version: conflict.version, conflict: undefined, saveError: undefined });
    void get().flush();
  },
}));

const isNodeResult = (result: unknown): result is NodeGenerationResult =>
  typeof result === 'object' && result !== null && 'nodeId' in result && 'asset' in result;

/** Brings running nodes up to date with their jobs: the image when one finished, the error when one failed. */
function settleNodes(jobs: readonly LiveJob[]): void {
  const { nodes } = useGraph.getState();
  const running = nodes.filter((node) => node.data.status === 'running' && node.data.requestId);
  if (running.length === 0) return;
  const byId = new Map(jobs.map((job) => [job.requestId, job]));
  const ended = running.flatMap((node) => {
    const job = byId.get(node.data.requestId as string);
    return job && job.status !== 'running' ? [job] : [];
  });
  if (ended.length === 0) return;
  useGraph.getState().commit((graph) => {
    let next = graph;
    for (const job of ended) {
      if (job.status === 'succeeded' && isNodeResult(job.result)) next = finishNode(next.nodes, next.edges, job.requestId, job.result);
      else
        next = {
          ...next,
          nodes: failNode(next.nodes, job.requestId, job.error ?? { code: 'UNKNOWN', message: 'The job ended without a node.' }),
        };
    }
    return next;
  });
}

/**
 * Follows the page's live jobs while the Node view is open (outside React, so
 * an event re-renders only the node it concerns). Running nodes the page has
 * not heard of (a reload, a job that ended while the view was closed) have
 * their job read once.
 */
export function followNodeJobs(queryClient: QueryClient): () => void {
  const jobs = () => queryClient.getQueryData<LiveJob[]>(LIVE_JOBS_KEY) ?? [];
  const asked = new Set<string>();
  const check = () => {
    const known = jobs();
    settleNodes(known);
    for (const node of useGraph.getState().nodes) {
      const requestId = node.data.requestId;
      if (node.data.status !== 'running' || !requestId || asked.has(requestId) || known.some((job) => job.requestId === requestId))
        continue;
      asked.add(requestId);
      void readJob(queryClient, requestId, 'here');
    }
  };
  const unsubscribeJobs = queryClient.getQueryCache().subscribe((event) => {
    if (event.type === 'updated' && event.query.queryKey[0] === LIVE_JOBS_KEY[0]) settleNodes(jobs());
  });
  // A graph just loaded may hold nodes of jobs that ended meanwhile.
  const unsubscribeGraph = useGraph.subscribe((state, previous) => {
    if (state.nodes !== previous.nodes && state.version !== undefined && previous.version === undefined) check();
  });
  check();
  return () => {
    unsubscribeJobs();
    unsubscribeGraph();
  };
}
