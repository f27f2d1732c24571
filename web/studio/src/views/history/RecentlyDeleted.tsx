import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AssetRecord } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatTime, plural } from '../../components/format';
import { followLink } from '../../router';
import { restoreAsset } from './assetActions';
import './recently-deleted.css';

/** A tombstone as GET /api/history/deleted lists it (an addition of this studio, not in the spec). */
export interface DeletedAsset extends AssetRecord {
  deletedAt: string;
  restorableUntil: string;
}

export const RECENTLY_DELETED_PATH = '/history/deleted';

/** Images deleted within the retention window, newest deletion first, each with Restore. */
export function RecentlyDeleted() {
  const queryClient = useQueryClient();
  const deleted = useQuery({ queryKey: ['history', 'deleted'], queryFn: () => api<{ items: DeletedAsset[] }>('/api/history/deleted') });
  const items = deleted.data?.items ?? [];
  return (
    <div className="recently-deleted">
      <div className="recently-deleted-head">
        <h1>Recently deleted</h1>
        <a href="/history" onClick={followLink}>
          Back to History
        </a>
      </div>
      <p className="hint">
        Deleted images stay restorable for a while (the history retention), then go for good.{' '}
        {items.length > 0 && plural(items.length, 'image')} here.
      </p>
      {deleted.error && <ErrorNotice error={toErrorPayload(deleted.error)} />}
      {deleted.isPending && <p className="hint">Loading…</p>}
      {!deleted.isPending && items.length === 0 && <p className="hint empty">Nothing was deleted recently.</p>}
      <ul className="deleted-list">
        {items.map((asset) => (
          <li key={asset.filename} className="deleted-item" data-filename={asset.filename}>
            <div>
              <p className="deleted-prompt">{asset.prompt || asset.filename}</p>
              <p className="muted">
                {asset.provider} · {asset.width}×{asset.height} · deleted {formatTime(asset.deletedAt)} · restorable until{' '}
                {formatTime(asset.restorableUntil)}
              </p>
            </div>
            <button type="button" onClick={() => void restoreAsset(queryClient, asset)}>
              Restore
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
