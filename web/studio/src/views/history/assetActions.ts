import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import type { AssetRecord } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import type { HistoryGroupsPage, HistoryPage, Purged, Tombstone } from '../../api/responses';
import { errorHelp } from '../../components/errorHelp';
import { plural } from '../../components/format';
import { withToken } from '../../api/token';
import { navigate } from '../../router';
import { useUi } from '../../store/ui';
import { referenceFromAsset } from '../classic/references';

// What can be done with an image of history.

const path = (filename: string) => `/api/history/${encodeURIComponent(filename)}`;

/** Takes the asset out of every cached listing at once (the refetch confirms it). */
function dropFromListings(queryClient: QueryClient, filename: string): void {
  queryClient.setQueriesData<InfiniteData<HistoryPage>>({ queryKey: ['history', 'items'] }, (data) =>
    data
      ? { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.filename !== filename) })) }
      : data,
  );
  queryClient.setQueriesData<InfiniteData<HistoryGroupsPage>>({ queryKey: ['history', 'groups'] }, (data) =>
    data
      ? {
          ...data,
          pages: data.pages.map((page) => ({
            ...page,
            groups: page.groups.map((group) => ({ ...group, items: group.items.filter((item) => item.filename !== filename) })),
          })),
        }
      : data,
  );
}

const refreshListings = (queryClient: QueryClient) => {
  void queryClient.invalidateQueries({ queryKey: ['history'] });
  void queryClient.invalidateQueries({ queryKey: ['storage'] });
};

const failed = (what: string, error: unknown) => {
  const payload = toErrorPayload(error);
  useUi.getState().showToast(`${what} failed: ${errorHelp(payload).meaning} (${payload.code})`);
};

export async function restoreAsset(queryClient: QueryClient, asset: AssetRecord): Promise<void> {
  try {
    await api<AssetRecord>(`${path(asset.filename)}/restore`, { method: 'POST' });
    refreshListings(queryClient);
    useUi.getState().showToast('Restored.');
  } catch (error) {
    failed('Restore', error);
  }
}

/** Deletes to a tombstone, with Undo in the message for as long as it shows. On a full disk, offers the permanent delete. */
export async function deleteAsset(queryClient: QueryClient, asset: AssetRecord): Promise<void> {
  try {
    await api<Tombstone>(path(asset.filename), { method: 'DELETE' });
  } catch (error) {
    if (toErrorPayload(error).code === 'STORAGE_FULL')
      return confirmPermanentDelete(
        queryClient,
        asset,
        'The disk is full: a deleted image keeps its space until it is deleted permanently.',
      );
    failed('Delete', error);
    return;
  }
  const ui = useUi.getState();
  if (ui.selectedAsset === asset.filename) ui.selectAsset(undefined);
  dropFromListings(queryClient, asset.filename);
  refreshListings(queryClient);
  ui.showToast('Image deleted.', { label: 'Undo', run: () => void restoreAsset(queryClient, asset) });
}

/** Deletes several to tombstones; one message, whose Undo restores every one deleted. */
export async function deleteAssets(queryClient: QueryClient, assets: readonly AssetRecord[]): Promise<void> {
  const deleted: AssetRecord[] = [];
  let failure: unknown;
  for (const asset of assets) {
    try {
      await api<Tombstone>(path(asset.filename), { method: 'DELETE' });
      deleted.push(asset);
      dropFromListings(queryClient, asset.filename);
    } catch (error) {
      failure = error;
    }
  }
  const ui = useUi.getState();
  if (deleted.some((asset) => asset.filename === ui.selectedAsset)) ui.selectAsset(undefined);
  refreshListings(queryClient);
  if (failure !== undefined && deleted.length === 0) return failed('Delete', failure);
  const notDeleted = assets.length - deleted.length;
  ui.showToast(`${plural(deleted.length, 'image')} deleted${notDeleted > 0 ? `; ${plural(notDeleted, 'image')} could not be` : ''}.`, {
    label: 'Undo',
    run: () =>
      void Promise.all(deleted.map((asset) => api<AssetRecord>(`${path(asset.filename)}/restore`, { method: 'POST' }))).then(
        () => refreshListings(queryClient),
        (error: unknown) => failed('Restore', error),
      ),
  });
}

/** Downloads each image under its history name (the browser may ask once to allow several downloads). */
export function downloadAssets(assets: readonly AssetRecord[]): void {
  for (const asset of assets) {
    const link = document.createElement('a');
    link.href = withToken(asset.url);
    link.download = asset.filename;
    document.body.append(link);
    link.click();
    link.remove();
  }
}

/** Asks first (the message's action is the confirmation): a permanent delete has no undo. */
export function confirmPermanentDelete(queryClient: QueryClient, asset: AssetRecord, why = 'This cannot be undone.'): void {
  useUi.getState().showToast(`Delete ${asset.filename} permanently? ${why}`, {
    label: 'Delete permanently',
    run: () => void deletePermanently(queryClient, asset),
  });
}

/** Deletes the image and its files now (how space is freed on a full disk). */
async function deletePermanently(queryClient: QueryClient, asset: AssetRecord): Promise<void> {
  let purged: Purged;
  try {
    purged = await api<Purged>(`${path(asset.filename)}?permanent=true`, { method: 'DELETE' });
  } catch (error) {
    failed('Permanent delete', error);
    return;
  }
  const ui = useUi.getState();
  if (ui.selectedAsset === asset.filename) ui.selectAsset(undefined);
  dropFromListings(queryClient, asset.filename);
  refreshListings(queryClient);
  ui.showToast(`Deleted permanently: ${Math.max(1, Math.round(purged.freedBytes / 1024))} KB freed.`);
}

export async function copyPrompt(prompt: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(prompt);
  } catch {
    // No clipboard API (not a secure context): the old way.
    const area = document.createElement('textarea');
    area.value = prompt;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  useUi.getState().showToast('Prompt copied.');
}

/** Loads the asset's prompt and settings into the composer (asking first when it holds something). */
export function remixAsset(asset: AssetRecord): void {
  if (useUi.getState().requestRemix(asset) === 'applied') {
    navigate('/');
    useUi.getState().showToast('Loaded into the composer.');
  }
}

export function addAsReference(asset: AssetRecord): void {
  useUi.getState().addReferences([referenceFromAsset(asset)]);
  useUi.getState().showToast('Added to the references.', { label: 'Open Classic', run: () => navigate('/') });
}

export function editAsset(asset: AssetRecord): void {
  useUi.getState().updateComposer({ editImage: asset, count: 1 });
  navigate('/');
}
