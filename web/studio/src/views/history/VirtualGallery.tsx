import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { AssetRecord } from '../../api/contract';
import { withToken } from '../../api/token';
import { formatTime } from '../../components/format';
import './gallery.css';

// A windowed grid: only the rows in (or near) view are in the DOM, so a
// history of thousands of images scrolls like one of ten. Rows are a flat list
// (group headers, rows of square tiles, "more" buttons) with computed offsets;
// scrolling near the end asks for the next page.

export interface GallerySection {
  key: string;
  /** A group's heading (session title); none for the plain listing. */
  title?: string;
  count?: number;
  items: AssetRecord[];
  more?: { label: string; loading: boolean; load(): void };
}

type Row =
  | { kind: 'header'; key: string; top: number; height: number; title: string; count?: number }
  | { kind: 'tiles'; key: string; top: number; height: number; items: AssetRecord[]; firstIndex: number }
  | { kind: 'more'; key: string; top: number; height: number; more: NonNullable<GallerySection['more']> };

const MIN_TILE = 150;
const GAP = 8;
const HEADER_HEIGHT = 44;
const MORE_HEIGHT = 52;
/** Rows rendered beyond the visible area, in pixels. */
const OVERSCAN = 600;

function layout(sections: GallerySection[], cols: number, rowHeight: number): { rows: Row[]; total: number; tiles: AssetRecord[] } {
  const rows: Row[] = [];
  const tiles: AssetRecord[] = [];
  let top = 0;
  for (const section of sections) {
    if (section.title !== undefined) {
      rows.push({ kind: 'header', key: `h:${section.key}`, top, height: HEADER_HEIGHT, title: section.title, count: section.count });
      top += HEADER_HEIGHT;
    }
    for (let start = 0; start < section.items.length; start += cols) {
      const items = section.items.slice(start, start + cols);
      rows.push({ kind: 'tiles', key: `t:${section.key}:${start}`, top, height: rowHeight, items, firstIndex: tiles.length });
      tiles.push(...items);
      top += rowHeight;
    }
    if (section.more) {
      rows.push({ kind: 'more', key: `m:${section.key}`, top, height: MORE_HEIGHT, more: section.more });
      top += MORE_HEIGHT;
    }
  }
  return { rows, total: top, tiles };
}

export interface VirtualGalleryProps {
  sections: GallerySection[];
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
  selected?: string;
  onOpen(asset: AssetRecord): void;
  /** Shown when there is nothing to list. */
  empty: string;
  /** Selecting several: a click checks or unchecks a tile instead of opening it. */
  selecting?: boolean;
  checked?: ReadonlySet<string>;
  onToggle?(asset: AssetRecord): void;
  /** The loaded images in order, told when they change (the lightbox steps through them). */
  onTiles?(tiles: AssetRecord[]): void;
}

export function VirtualGallery({
  sections,
  hasMore,
  loadingMore,
  loadMore,
  selected,
  onOpen,
  empty,
  selecting = false,
  checked,
  onToggle,
  onTiles,
}: VirtualGalleryProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  const pendingFocus = useRef<number | undefined>(undefined);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => setViewport({ width: element.clientWidth, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const cols = Math.max(2, Math.floor((viewport.width + GAP) / (MIN_TILE + GAP)));
  const tileSize = viewport.width > 0 ? (viewport.width - GAP * (cols - 1)) / cols : MIN_TILE;
  const rowHeight = tileSize + GAP;
  const { rows, total, tiles } = useMemo(() => layout(sections, cols, rowHeight), [sections, cols, rowHeight]);
  useEffect(() => onTiles?.(tiles), [tiles, onTiles]);
  const endHeight = hasMore || loadingMore || tiles.length > 0 ? MORE_HEIGHT : 0;

  // Near the end: the next page (also when the loaded rows do not fill the view).
  useEffect(() => {
    if (viewport.height > 0 && hasMore && !loadingMore && scrollTop + viewport.height >= total - 2 * rowHeight) loadMore();
  }, [scrollTop, viewport.height, total, rowHeight, hasMore, loadingMore, loadMore]);

  // Keyboard moves focus to a tile that was not rendered yet: focus it once it is.
  useEffect(() => {
    if (pendingFocus.current === undefined) return;
    const element = scroller.current?.querySelector<HTMLButtonElement>(`[data-index="${pendingFocus.current}"]`);
    if (element) {
      element.focus();
      pendingFocus.current = undefined;
    }
  });

  const visible = rows.filter((row) => row.top + row.height > scrollTop - OVERSCAN && row.top < scrollTop + viewport.height + OVERSCAN);

  /** Arrow keys move between tiles (up and down by a row), Home and End to the ends. */
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = Number((event.target as HTMLElement).dataset.index);
    if (Number.isNaN(index)) return;
    const moves: Record<string, number> = {
      ArrowRight: 1,
      ArrowLeft: -1,
      ArrowDown: cols,
      ArrowUp: -cols,
      Home: -index,
      End: tiles.length - 1 - index,
    };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = Math.min(tiles.length - 1, Math.max(0, index + move));
    const row = rows.find(
      (candidate) => candidate.kind === 'tiles' && next >= candidate.firstIndex && next < candidate.firstIndex + candidate.items.length,
    );
    const element = scroller.current;
    if (row && element && (row.top < element.scrollTop || row.top + row.height > element.scrollTop + element.clientHeight)) {
      element.scrollTop = Math.max(0, row.top - (element.clientHeight - row.height) / 2);
    }
    // Focused now when rendered; else once it is. A focus left pending would take focus back at the
    // next render, from wherever it went meanwhile (the detail panel that Enter opened).
    const target = scroller.current?.querySelector<HTMLButtonElement>(`[data-index="${next}"]`);
    if (target) {
      target.focus();
      pendingFocus.current = undefined;
    } else pendingFocus.current = next;
  };

  return (
    <div
      ref={scroller}
      className="gallery"
      role="region"
      aria-label="Images"
      data-loaded={tiles.length}
      data-has-more={hasMore}
      data-loading={loadingMore}
      data-rendered={visible.reduce((sum, row) => sum + (row.kind === 'tiles' ? row.items.length : 0), 0)}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
    >
      {tiles.length === 0 && !hasMore && !loadingMore && <p className="hint empty">{empty}</p>}
      <div className="gallery-space" style={{ height: total + endHeight }}>
        {visible.map((row) => {
          if (row.kind === 'header') {
            return (
              <h2 key={row.key} className="gallery-header" style={{ top: row.top, height: row.height }}>
                {row.title} {row.count !== undefined && <span className="muted">({row.count})</span>}
              </h2>
            );
          }
          if (row.kind === 'more') {
            return (
              <div key={row.key} className="gallery-more" style={{ top: row.top, height: row.height }}>
                <button type="button" className="ghost" disabled={row.more.loading} onClick={row.more.load}>
                  {row.more.loading ? 'Loading…' : row.more.label}
                </button>
              </div>
            );
          }
          return (
            <div
              key={row.key}
              className="gallery-row"
              style={{ top: row.top, height: tileSize, gridTemplateColumns: `repeat(${cols}, 1fr)` }}
            >
              {row.items.map((asset, offset) => (
                <button
                  key={asset.filename}
                  type="button"
                  className="tile"
                  data-index={row.firstIndex + offset}
                  data-filename={asset.filename}
                  aria-pressed={selecting ? checked?.has(asset.filename) === true : asset.filename === selected}
                  data-checked={checked?.has(asset.filename) || undefined}
                  aria-label={asset.prompt}
                  onClick={() => (selecting ? onToggle?.(asset) : onOpen(asset))}
                >
                  <img
                    src={withToken(asset.thumbnailUrl)}
                    alt=""
                    loading="lazy"
                    decoding="async"
                    width={asset.width}
                    height={asset.height}
                  />
                  {selecting && <span className="tile-check" aria-hidden="true" />}
                  <span className="tile-caption" aria-hidden="true">
                    <span className="tile-caption-prompt">{asset.prompt}</span>
                    <span>
                      {asset.provider} · {formatTime(asset.createdAt)}
                    </span>
                  </span>
                </button>
              ))}
            </div>
          );
        })}
        {endHeight > 0 && (
          <p className="gallery-end hint" style={{ top: total, height: endHeight }} role="status">
            {loadingMore ? 'Loading more…' : hasMore ? '' : `${tiles.length} ${tiles.length === 1 ? 'image' : 'images'}`}
          </p>
        )}
      </div>
    </div>
  );
}
