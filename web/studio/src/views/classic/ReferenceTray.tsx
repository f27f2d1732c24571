import { useState, type DragEvent } from 'react';
import type { CapabilitiesBody } from '../../api/contract';
import { useHistoryItems } from '../../api/queries';
import { withToken } from '../../api/token';
import { composerFromMade, useUi } from '../../store/ui';
import { readEmbeddedSettings, type EmbeddedSettings } from './embeddedMetadata';
import type { LaneChoice } from './laneChoice';
import { referenceFromAsset, referencesFromFiles, REFERENCE_TYPES } from './references';

/** Recent history images to add as references. */
function HistoryReferencePicker({ onClose }: { onClose(): void }) {
  const history = useHistoryItems({});
  const addReferences = useUi((state) => state.addReferences);
  const items = history.data?.pages.flatMap((page) => page.items).slice(0, 24) ?? [];
  return (
    <div className="history-picker" role="group" aria-label="Add from history">
      {history.isPending && <p className="hint">Loading history…</p>}
      {!history.isPending && items.length === 0 && <p className="hint">History is empty.</p>}
      <div className="history-picker-grid">
        {items.map((asset) => (
          <button
            key={asset.filename}
            type="button"
            className="history-picker-item"
            title={asset.prompt}
            aria-label={`Add as reference: ${asset.prompt}`}
            onClick={() => addReferences([referenceFromAsset(asset)])}
          >
            <img src={withToken(asset.thumbnailUrl)} alt="" width={72} height={72} />
          </button>
        ))}
      </div>
      <button type="button" className="ghost" onClick={onClose}>
        Done
      </button>
    </div>
  );
}

/**
 * Reference images: dropped, pasted (into the prompt), chosen from files or
 * from history; previewed, with the lane's limit shown before sending.
 */
export function ReferenceTray({
  capabilities,
  choice,
  onFilesRefused,
}: {
  capabilities: CapabilitiesBody;
  choice: LaneChoice;
  onFilesRefused(reasons: string[]): void;
}) {
  const references = useUi((state) => state.composer.references);
  const editing = useUi((state) => state.composer.editImage !== undefined);
  const addReferences = useUi((state) => state.addReferences);
  const removeReference = useUi((state) => state.removeReference);
  const [dragging, setDragging] = useState(false);
  const [picking, setPicking] = useState(false);
  // A dropped studio image says how it was made: its settings are offered (never applied unasked).
  const [made, setMade] = useState<{ name: string; settings: EmbeddedSettings }>();
  const maxBytes = typeof capabilities.limits.referenceMaxBytes === 'number' ? capabilities.limits.referenceMaxBytes : undefined;
  // An edit's image counts as one of the lane's input images.
  const max = Math.max(0, choice.maxInputImages - (editing ? 1 : 0));
  const over = references.length > max;

  const addFiles = async (files: Iterable<File>) => {
    const list = Array.from(files);
    const { added, refused } = await referencesFromFiles(list, maxBytes);
    if (added.length) addReferences(added);
    onFilesRefused(refused);
    for (const file of list) {
      const settings = added.some((reference) => reference.name === file.name) ? await readEmbeddedSettings(file) : undefined;
      if (settings) {
        setMade({ name: file.name, settings });
        break;
      }
    }
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    void addFiles(Array.from(event.dataTransfer.files));
  };

  return (
    <fieldset className="references" data-count={references.length} data-max={max}>
      <legend>
        References{' '}
        <span className={over ? 'count over' : 'count'} id="reference-count">
          {references.length} of {max}
        </span>
      </legend>
      <div
        className={`drop-zone${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="drop-zone"
      >
        {references.length > 0 && (
          <ul className="reference-list">
            {references.map((reference) => (
              <li key={reference.id} className="reference" data-source={reference.source}>
                <img
                  src={reference.source === 'file' ? reference.dataUrl : withToken(reference.thumbnailUrl)}
                  alt={reference.name}
                  width={64}
                  height={64}
                />
                <button
                  type="button"
                  className="remove"
                  aria-label={`Remove reference ${reference.name}`}
                  onClick={() => removeReference(reference.id)}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <p className="drop-hint">
          Drop images here, paste into the prompt, or{' '}
          <label className="file-label">
            choose files
            <input
              type="file"
              accept={REFERENCE_TYPES.join(',')}
              multiple
              className="visually-hidden"
              onChange={(event) => {
                void addFiles(Array.from(event.target.files ?? []));
                event.target.value = '';
              }}
            />
          </label>{' '}
          or{' '}
          <button type="button" className="link-button" onClick={() => setPicking(!picking)} aria-expanded={picking}>
            add from history
          </button>
          .
        </p>
      </div>
      {over && (
        <p className="field-problem" role="alert">
          {choice.label} takes at most {max} reference {max === 1 ? 'image' : 'images'}
          {editing ? ' besides the image to edit' : ''}: remove {references.length - max}.
        </p>
      )}
      {made && (
        <div className="made-offer" role="status" data-prompt={made.settings.prompt}>
          <span>
            {made.name} was made by the studio ({made.settings.lane}, {made.settings.model}).
          </span>
          <button
            type="button"
            onClick={() => {
              const { composer } = useUi.getState();
              const settings = composerFromMade({ ...made.settings, provider: made.settings.lane });
              useUi.getState().updateComposer({ ...settings, references: composer.references, editImage: composer.editImage });
              setMade(undefined);
            }}
          >
            Use its settings
          </button>
          <button type="button" className="ghost" aria-label="Dismiss" onClick={() => setMade(undefined)}>
            ×
          </button>
        </div>
      )}
      {picking && <HistoryReferencePicker onClose={() => setPicking(false)} />}
    </fieldset>
  );
}
