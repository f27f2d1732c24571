import '@xyflow/react/dist/style.css';
import './node.css';
import { useQueryClient } from '@tanstack/react-query';
import { Background, Controls, MiniMap, ReactFlow, ReactFlowProvider, useReactFlow, type NodeTypes, type XYPosition } from '@xyflow/react';
import { useEffect, useRef } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { navigate } from '../../router';
import { useUi } from '../../store/ui';
import { ConflictDialog } from './ConflictDialog';
import type { ImageNode } from './graphModel';
import { followNodeJobs, useGraph } from './graphStore';
import { ImageNodeCard } from './ImageNodeCard';
import { NodeComposer } from './NodeComposer';
import { SESSIONS_KEY, SessionPicker, sessionPath, useSessions } from './SessionPicker';

const NODE_TYPES: NodeTypes = { image: ImageNodeCard };
const DELETE_KEYS = ['Delete', 'Backspace'];
/** The smallest zoom a graph opens at. */
const FIT_MIN_ZOOM = 0.5;

/** The session named by the URL (`/node#<id>`). */
const sessionOfHash = (hash: string): string | undefined => (hash.length > 1 ? decodeURIComponent(hash.slice(1)) : undefined);

const isTyping = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** Save state, for people and tests: the version held, and whether every change is saved. */
function SaveStatus() {
  const version = useGraph((state) => state.version);
  const saving = useGraph((state) => state.saving);
  const unsaved = useGraph((state) => state.changeSeq !== state.savedSeq);
  const error = useGraph((state) => state.saveError);
  const conflict = useGraph((state) => state.conflict !== undefined);
  // Leaving the page with changes the studio does not have yet asks first.
  useEffect(() => {
    if (!unsaved) return;
    const onLeave = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, [unsaved]);
  if (version === undefined) return null;
  const label = conflict ? 'Not saved: the graph changed elsewhere' : error ? 'Not saved' : saving || unsaved ? 'Saving…' : 'Saved';
  return (
    <span className="graph-status" role="status" data-version={version} data-saved={!saving && !unsaved && !conflict && !error}>
      {label} · version {version}
      {error && (
        <>
          {' '}
          <code className="error-code">{error.code}</code>{' '}
          <button
            type="button"
            className="link-button graph-retry-save"
            title={error.message}
            onClick={() => void useGraph.getState().flush()}
          >
            Try again
          </button>
        </>
      )}
    </span>
  );
}

function GraphCanvas() {
  const nodes = useGraph((state) => state.nodes);
  const edges = useGraph((state) => state.edges);
  const version = useGraph((state) => state.version);
  const sessionId = useGraph((state) => state.sessionId);
  const { fitView } = useReactFlow();
  const dragFrom = useRef(new Map<string, XYPosition>());

  // Fit the view once each session's graph has loaded.
  const loaded = version !== undefined;
  useEffect(() => {
    if (!loaded) return;
    // Not below half size: a graph of hundreds of nodes opens on a readable part of it (and renders only that part).
    const frame = requestAnimationFrame(() => void fitView({ maxZoom: 1, minZoom: FIT_MIN_ZOOM, padding: 0.2 }));
    return () => cancelAnimationFrame(frame);
  }, [loaded, sessionId, fitView]);

  // A node just started (and its parent) come into view, once drawn.
  const focus = useGraph((state) => state.focus);
  useEffect(() => {
    if (!focus) return;
    const timer = setTimeout(() => void fitView({ nodes: focus.map((id) => ({ id })), maxZoom: 1, padding: 0.4, duration: 250 }), 60);
    return () => clearTimeout(timer);
  }, [focus, fitView]);

  // Keyboard: undo/redo of layout moves, fit view (Delete is xyflow's own).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || useGraph.getState().conflict) return;
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === 'z' && !event.shiftKey) useGraph.getState().undoMove();
      else if (mod && (key === 'y' || (key === 'z' && event.shiftKey))) useGraph.getState().redoMove();
      else if (!mod && !event.altKey && key === 'f') void fitView({ maxZoom: 1, padding: 0.2, duration: 200 });
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [fitView]);

  const onDragStart = (_event: unknown, _node: ImageNode, dragged: ImageNode[]) => {
    dragFrom.current = new Map(dragged.map((node) => [node.id, { ...node.position }]));
  };
  const onDragStop = (_event: unknown, _node: ImageNode, dragged: ImageNode[]) => {
    const from = dragFrom.current;
    useGraph.getState().recordMove({
      positions: dragged
        .filter((node) => from.has(node.id))
        .map((node) => ({ id: node.id, from: from.get(node.id) as XYPosition, to: { ...node.position } })),
    });
    dragFrom.current = new Map();
  };

  return (
    <ReactFlow<ImageNode>
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      onNodesChange={(changes) => useGraph.getState().onNodesChange(changes)}
      onEdgesChange={(changes) => useGraph.getState().onEdgesChange(changes)}
      onNodeDragStart={onDragStart}
      onNodeDragStop={onDragStop}
      nodesConnectable={false}
      deleteKeyCode={DELETE_KEYS}
      onlyRenderVisibleElements
      minZoom={0.05}
      colorMode="system"
      proOptions={{ hideAttribution: true }}
      aria-label="Graph"
    >
      <Background />
      <Controls showInteractive={false} />
      <MiniMap pannable zoomable />
    </ReactFlow>
  );
}

/** Node mode: the graph sessions and the graph of the open one. */
export function NodeView() {
  const queryClient = useQueryClient();
  const hash = useUi((state) => state.hash);
  const sessions = useSessions();
  const sessionId = sessionOfHash(hash);
  const openId = useGraph((state) => state.sessionId);
  const loading = useGraph((state) => state.loading);
  const loadError = useGraph((state) => state.loadError);

  // No session in the URL: open the newest one.
  const newest = sessions.data?.sessions[0]?.id;
  useEffect(() => {
    if (!sessionId && newest) navigate(sessionPath(newest));
  }, [sessionId, newest]);

  useEffect(() => {
    if (openId !== sessionId) void useGraph.getState().open(sessionId);
  }, [sessionId, openId]);

  useEffect(() => followNodeJobs(queryClient), [queryClient]);

  // Each save changes the session's node count and time in the picker.
  const version = useGraph((state) => state.version);
  useEffect(() => {
    if (version !== undefined) void queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
  }, [version, queryClient]);

  return (
    <div className="node-view" data-session={openId ?? ''}>
      <div className="node-toolbar">
        <h1 className="visually-hidden">Node</h1>
        <SessionPicker sessionId={sessionId} />
        <SaveStatus />
      </div>
      <div className="node-body">
        <NodeComposer />
        <div className="node-canvas" data-loading={loading}>
          {loadError ? (
            <ErrorNotice error={loadError} />
          ) : sessionId ? (
            <ReactFlowProvider>
              <GraphCanvas />
            </ReactFlowProvider>
          ) : (
            <p className="node-empty muted">
              Create a session to start a graph: each root is a new image, each child an edit of its parent&apos;s image.
            </p>
          )}
        </div>
      </div>
      <p className="node-keys muted">Delete removes the selected nodes · Ctrl+Z / Ctrl+Shift+Z undo and redo moves · F fits the view</p>
      <ConflictDialog />
    </div>
  );
}
