import { useCallback, useMemo, useState } from 'react';
import { toErrorPayload } from '../../api/http';
import { useAssetDetail, useCapabilities, useHistoryGroups, useHistoryItems } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useUi } from '../../store/ui';
import { AssetDetail } from './AssetDetail';
import { activeFilterCount, historyFilterOf } from './filters';
import { HistoryToolbar } from './HistoryToolbar';
import { useHistoryUrl } from './historyUrl';
import { RECENTLY_DELETED_PATH, RecentlyDeleted } from './RecentlyDeleted';
import { followLink } from '../../router';
import { VirtualGallery, type GallerySection, type VirtualGalleryProps } from './VirtualGallery';
import { Lightbox } from './Lightbox';
import { SelectionBar } from './SelectionBar';
import type { AssetRecord } from '../../api/contract';

/** What both galleries take: the open image, and selecting several (passed on to VirtualGallery). */
type GalleryProps = Pick<VirtualGalleryProps, 'selecting' | 'checked' | 'onToggle' | 'onTiles'> & {
  selected?: string;
  onOpen(filename: string): void;
};

export const sessionLabel = (title: string | null): string => title ?? 'No session';

/** Session groups, most recently active first, each with its newest images and a way to see all of it. */
function GroupedGallery({ selected, onOpen, ...selection }: GalleryProps) {
  const groups = useHistoryGroups();
  const setHistory = useUi((state) => state.setHistory);
  const sections = useMemo<GallerySection[]>(
    () =>
      (groups.data?.pages.flatMap((page) => page.groups) ?? []).map((group) => ({
        // Two graph sessions may share a title: a group is its session, else its title.
        key: group.sessionId !== null ? `s:${group.sessionId}` : `t:${group.sessionTitle ?? '\u0000none'}`,
        title: `${sessionLabel(group.sessionTitle)}${group.sessionDeleted ? ' (deleted)' : ''}`,
        count: group.count,
        items: group.items,
        more: group.itemsNextCursor
          ? {
              label: `Show all ${group.count} of ${sessionLabel(group.sessionTitle)}`,
              loading: false,
              load: () => setHistory({ grouped: false, session: group.sessionTitle, sessionId: group.sessionId ?? undefined }),
            }
          : undefined,
      })),
    [groups.data, setHistory],
  );
  const loadMore = useCallback(() => void groups.fetchNextPage(), [groups]);
  return (
    <>
      {groups.error && <ErrorNotice error={toErrorPayload(groups.error)} />}
      <VirtualGallery
        {...selection}
        sections={sections}
        hasMore={groups.hasNextPage}
        loadingMore={groups.isFetchingNextPage || groups.isPending}
        loadMore={loadMore}
        selected={selected}
        onOpen={(asset) => onOpen(asset.filename)}
        empty="History is empty: images you make appear here."
      />
    </>
  );
}

/** The plain listing: newest first, narrowed by search, lane, model, kind, dates and session. */
function ItemsGallery({ selected, onOpen, ...selection }: GalleryProps) {
  const listing = useUi((state) => state.history);
  // A date range that ends before it starts matches nothing: no request for it.
  const { filter, impossible } = historyFilterOf(listing);
  const items = useHistoryItems(filter, !impossible);
  const sections = useMemo<GallerySection[]>(
    () => [{ key: 'all', items: impossible ? [] : (items.data?.pages.flatMap((page) => page.items) ?? []) }],
    [items.data, impossible],
  );
  const loadMore = useCallback(() => void items.fetchNextPage(), [items]);
  const filtered = activeFilterCount(listing) > 0;
  return (
    <>
      {items.error && !impossible && <ErrorNotice error={toErrorPayload(items.error)} />}
      <VirtualGallery
        {...selection}
        sections={sections}
        hasMore={!impossible && items.hasNextPage}
        loadingMore={!impossible && (items.isFetchingNextPage || items.isPending)}
        loadMore={loadMore}
        selected={selected}
        onOpen={(asset) => onOpen(asset.filename)}
        empty={filtered ? 'No image matches.' : 'History is empty: images you make appear here.'}
      />
    </>
  );
}

/** History: the gallery with its filters and the selected image's details, or the recently deleted images. */
export function HistoryView() {
  const path = useUi((state) => state.path);
  return path === RECENTLY_DELETED_PATH ? <RecentlyDeleted /> : <HistoryListingView />;
}

function HistoryListingView() {
  useHistoryUrl();
  const capabilities = useCapabilities();
  const grouped = useUi((state) => state.history.grouped);
  const selected = useUi((state) => state.selectedAsset);
  const selectAsset = useUi((state) => state.selectAsset);
  // Each opening counts, that of the image already shown too: the details take the focus every time.
  const [openings, setOpenings] = useState(0);
  const open = (filename: string) => {
    selectAsset(filename);
    setOpenings((count) => count + 1);
  };
  const [tiles, setTiles] = useState<AssetRecord[]>([]);
  const [enlarged, setEnlarged] = useState(false);
  const openAsset = useAssetDetail(enlarged ? selected : undefined);
  const [selecting, setSelecting] = useState(false);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const toggle = useCallback((asset: AssetRecord) => {
    setChecked((current) => {
      const next = new Set(current);
      if (!next.delete(asset.filename)) next.add(asset.filename);
      return next;
    });
  }, []);
  const gallery = { selected, onOpen: open, selecting, checked, onToggle: toggle, onTiles: setTiles };
  return (
    <div className={`history${selected ? ' with-detail' : ''}`}>
      <h1 className="visually-hidden">History</h1>
      <HistoryToolbar capabilities={capabilities.data} />
      <p className="history-links">
        <a href={RECENTLY_DELETED_PATH} onClick={followLink}>
          Recently deleted
        </a>
      </p>
      <SelectionBar
        selecting={selecting}
        checked={tiles.filter((asset) => checked.has(asset.filename))}
        onSelecting={(on) => {
          setSelecting(on);
          setChecked(new Set());
        }}
        onDone={() => setChecked(new Set())}
      />
      <div className="history-body">
        {grouped ? <GroupedGallery {...gallery} /> : <ItemsGallery {...gallery} />}
        {selected && (
          <AssetDetail filename={selected} opening={openings} onClose={() => selectAsset(undefined)} onEnlarge={() => setEnlarged(true)} />
        )}
      </div>
      {enlarged && selected && openAsset.data && (
        <Lightbox items={tiles} current={openAsset.data} onStep={selectAsset} onClose={() => setEnlarged(false)} />
      )}
    </div>
  );
}
