import { useEffect, useRef } from 'react';
import { difference } from './graphModel';
import { useGraph } from './graphStore';
import { plural } from '../../components/format';

const promptOf = (node: { id: string; data?: Record<string, unknown> }): string =>
  typeof node.data?.prompt === 'string' && node.data.prompt !== '' ? node.data.prompt : node.id;

/**
 * A save refused with 412: the graph changed elsewhere (another tab, the CLI).
 * Shows the server's version against this page's and lets the person choose;
 * saving waits until they do.
 */
export function ConflictDialog() {
  const conflict = useGraph((state) => state.conflict);
  const nodes = useGraph((state) => state.nodes);
  const version = useGraph((state) => state.version);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (conflict && !element.open) element.showModal();
    if (!conflict && element.open) element.close();
  }, [conflict]);

  const diff = conflict ? difference(nodes, conflict.graph.nodes) : undefined;
  const theirs = new Map(conflict?.graph.nodes.map((node) => [node.id, node]) ?? []);
  const mine = new Map(nodes.map((node) => [node.id, node]));
  return (
    // Escape does not dismiss it: one of the two choices must be made.
    <dialog
      ref={dialog}
      className="dialog graph-conflict"
      aria-labelledby="graph-conflict-title"
      onCancel={(event) => event.preventDefault()}
    >
      <h2 id="graph-conflict-title">The graph changed elsewhere</h2>
      {conflict && diff && (
        <>
          <p>
            This page made its changes from version {version}; the studio now has version{' '}
            <strong data-their-version={conflict.version}>{conflict.version}</strong> ({plural(conflict.graph.nodes.length, 'node')},{' '}
            {plural(conflict.graph.edges.length, 'edge')}). This page has {plural(nodes.length, 'node')}.
          </p>
          {diff.onlyTheirs.length > 0 && (
            <div className="conflict-side">
              <h3>Only in the studio&apos;s version</h3>
              <ul className="conflict-theirs">
                {diff.onlyTheirs.map((id) => (
                  <li key={id}>{promptOf(theirs.get(id) ?? { id })}</li>
                ))}
              </ul>
            </div>
          )}
          {diff.onlyMine.length > 0 && (
            <div className="conflict-side">
              <h3>Only on this page</h3>
              <ul className="conflict-mine">
                {diff.onlyMine.map((id) => (
                  <li key={id}>{promptOf(mine.get(id) ?? { id })}</li>
                ))}
              </ul>
            </div>
          )}
          <p className="muted">
            Reloading drops this page&apos;s unsaved changes (their images stay in History); overwriting replaces the studio&apos;s version
            with this page&apos;s.
          </p>
        </>
      )}
      <div className="dialog-actions">
        <button type="button" className="conflict-reload" onClick={() => useGraph.getState().takeTheirs()}>
          Reload the studio&apos;s version
        </button>
        <button type="button" className="primary conflict-overwrite" onClick={() => useGraph.getState().keepMine()}>
          Overwrite with mine
        </button>
      </div>
    </dialog>
  );
}
