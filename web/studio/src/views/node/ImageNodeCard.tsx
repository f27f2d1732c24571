import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, useState } from 'react';
import { api, toErrorPayload } from '../../api/http';
import { useCapabilities, laneLabel } from '../../api/queries';
import { withToken } from '../../api/token';
import type { ImageNode } from './graphModel';
import { useGraph } from './graphStore';
import { useNodeProgress } from './useLiveJob';

const PHASE_LABELS: Record<string, string> = {
  queued: 'Queued',
  planning: 'Planning',
  rendering: 'Rendering',
  saving: 'Saving',
  searching: 'Searching',
};

/** Makes this node the only selected one (the parent of the next child) and puts the cursor in the prompt. */
function selectAsParent(id: string): void {
  const { nodes, onNodesChange } = useGraph.getState();
  onNodesChange(
    nodes.filter((node) => node.selected !== (node.id === id)).map((node) => ({ type: 'select', id: node.id, selected: node.id === id })),
  );
  document.getElementById('node-prompt')?.focus();
}

/** An image node: its image (or its job's live phase and partial render), prompt and lane. */
function ImageNodeCardBase({ id, data, selected }: NodeProps<ImageNode>) {
  const capabilities = useCapabilities();
  const running = data.status === 'running';
  const progress = useNodeProgress(running ? data.requestId : undefined);
  const phase = progress?.phase;
  const state = data.status ?? 'ready';
  const picture = data.thumbnailUrl ?? data.url;
  // Its image deleted from history (the file answers 404): said so, with a way back while history keeps it.
  const [missing, setMissing] = useState(false);
  const [loads, setLoads] = useState(0);
  const [restoreError, setRestoreError] = useState<string>();
  const restore = async () => {
    if (!data.filename) return;
    try {
      await api(`/api/history/${encodeURIComponent(data.filename)}/restore`, { method: 'POST' });
      setRestoreError(undefined);
      setMissing(false);
      setLoads((count) => count + 1);
    } catch (error) {
      const payload = toErrorPayload(error);
      setRestoreError(`${payload.message} (${payload.code})`);
    }
  };
  return (
    <div
      className={`graph-node${selected ? ' selected' : ''}`}
      data-node-id={id}
      data-state={state}
      data-phase={running ? (phase ?? '') : undefined}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="graph-node-image">
        {picture && !missing && (
          <img
            key={loads}
            src={withToken(picture)}
            alt={data.prompt ?? ''}
            draggable={false}
            decoding="async"
            data-final=""
            onError={() => setMissing(true)}
          />
        )}
        {picture && missing && (
          <span className="graph-node-missing" role="alert">
            Its image was deleted from history.{' '}
            <button type="button" className="nodrag" onClick={() => void restore()}>
              Restore
            </button>
            {restoreError && <span className="graph-node-restore-error"> {restoreError}</span>}
          </span>
        )}
        {running && progress?.partial && <img src={progress.partial} alt="" data-partial="" />}
        {running && (
          <span className="graph-node-phase" role="status">
            {phase ? (PHASE_LABELS[phase] ?? phase) : 'Starting'}
            {phase === 'queued' && progress?.queuePosition ? ` (#${progress.queuePosition})` : ''}
          </span>
        )}
        {state === 'failed' && (
          <span className="graph-node-error" role="alert" data-code={data.error?.code}>
            {data.error?.message ?? 'Failed'}
          </span>
        )}
      </div>
      <p className="graph-node-prompt" title={data.prompt}>
        {data.prompt || <em>no prompt</em>}
      </p>
      {data.provider && (
        <p className="graph-node-lane">
          {laneLabel(capabilities.data, data.provider)}
          {data.model ? ` · ${data.model}` : ''}
        </p>
      )}
      {state === 'ready' && data.filename && (
        <button
          type="button"
          className="nodrag graph-node-child"
          onClick={() => selectAsParent(id)}
          title="Select this node and write the edit of its image"
        >
          Edit into a child…
        </button>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

export const ImageNodeCard = memo(ImageNodeCardBase);
