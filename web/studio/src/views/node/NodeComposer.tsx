import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { lanesOf, useCapabilities } from '../../api/queries';
import { useGraph } from './graphStore';
import { startNode } from './startNode';

/** The one selected node (id, prompt, whether it has its image): the parent a child edit starts from. */
function useSelectedParent(): { id: string; prompt: string; ready: boolean } | undefined {
  const id = useGraph((state) => {
    const selected = state.nodes.filter((node) => node.selected);
    return selected.length === 1 ? selected[0].id : undefined;
  });
  const prompt = useGraph((state) => (id ? (state.nodes.find((node) => node.id === id)?.data.prompt ?? '') : ''));
  const ready = useGraph((state) => (id ? Boolean(state.nodes.find((node) => node.id === id)?.data.filename) : false));
  return id ? { id, prompt, ready } : undefined;
}

/** The prompt and lane of the next node: a new root, or a child edit of the selected node. */
export function NodeComposer() {
  const queryClient = useQueryClient();
  const capabilities = useCapabilities();
  const sessionId = useGraph((state) => state.sessionId);
  const loaded = useGraph((state) => state.version !== undefined);
  const parent = useSelectedParent();
  const [prompt, setPrompt] = useState('');
  const [provider, setProvider] = useState('auto');
  const canStart = Boolean(sessionId) && loaded && prompt.trim() !== '';

  const start = (asChild: boolean) => {
    const parentNode = asChild && parent ? useGraph.getState().nodes.find((node) => node.id === parent.id) : undefined;
    if (asChild && !parentNode) return;
    void startNode(queryClient, { prompt, provider, parent: parentNode });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (canStart) start(false);
  };

  return (
    <form className="node-composer" onSubmit={submit} aria-label="New node">
      <label htmlFor="node-prompt">Prompt</label>
      <textarea
        id="node-prompt"
        rows={4}
        value={prompt}
        onChange={(event) => setPrompt(event.target.value)}
        placeholder="Describe the image, or the edit of the selected node"
      />
      <label htmlFor="node-lane">Lane</label>
      <select id="node-lane" value={provider} onChange={(event) => setProvider(event.target.value)}>
        <option value="auto">Auto (first ready lane)</option>
        {lanesOf(capabilities.data).map((lane) => (
          <option key={lane.id} value={lane.id}>
            {lane.label} ({lane.id})
          </option>
        ))}
      </select>
      <div className="node-composer-actions">
        <button type="submit" className="primary node-new-root" disabled={!canStart}>
          New root
        </button>
        <button type="button" className="node-child" disabled={!canStart || !parent?.ready} onClick={() => start(true)}>
          Generate child
        </button>
      </div>
      <p className="node-parent muted" data-parent={parent?.id ?? ''}>
        {parent
          ? parent.ready
            ? `Child edits: “${parent.prompt}”`
            : 'The selected node has no image yet.'
          : 'Select a node to generate a child edit of its image.'}
      </p>
    </form>
  );
}
