import { useQueryClient } from '@tanstack/react-query';
import type { AssetRecord } from '../../api/contract';
import { plural } from '../../components/format';
import { deleteAssets, downloadAssets } from './assetActions';

/** Selecting several images: how many are checked, and Download and Delete for all of them at once. */
export function SelectionBar({
  selecting,
  checked,
  onSelecting,
  onDone,
}: {
  selecting: boolean;
  checked: AssetRecord[];
  onSelecting(on: boolean): void;
  onDone(): void;
}) {
  const queryClient = useQueryClient();
  if (!selecting) {
    return (
      <div className="selection-bar">
        <button type="button" className="ghost" onClick={() => onSelecting(true)}>
          Select several
        </button>
      </div>
    );
  }
  return (
    <div className="selection-bar" role="toolbar" aria-label="Selected images" data-count={checked.length}>
      <span role="status">{checked.length === 0 ? 'Click images to select them.' : `${plural(checked.length, 'image')} selected`}</span>
      <button type="button" disabled={checked.length === 0} onClick={() => downloadAssets(checked)}>
        Download
      </button>
      <button
        type="button"
        className="danger"
        disabled={checked.length === 0}
        onClick={() => {
          void deleteAssets(queryClient, checked);
          onDone();
        }}
      >
        Delete
      </button>
      <button type="button" className="ghost" onClick={() => onSelecting(false)}>
        Done
      </button>
    </div>
  );
}
