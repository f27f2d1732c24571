import { useEffect, useRef, useState } from 'react';
import type { AssetRecord } from '../../api/contract';
import { withToken } from '../../api/token';

const ZOOMS = [1, 2, 4] as const;

/**
 * One image over the whole window: click or +/- zooms (fit, 2x, 4x), the arrow keys step to the
 * previous and next image of the listing (the open image follows, so the URL does too), Esc closes.
 */
export function Lightbox({
  items,
  current,
  onStep,
  onClose,
}: {
  items: AssetRecord[];
  current: AssetRecord;
  onStep(filename: string): void;
  onClose(): void;
}) {
  const filename = current.filename;
  const dialog = useRef<HTMLDialogElement>(null);
  const [zoom, setZoom] = useState<(typeof ZOOMS)[number]>(1);
  const index = items.findIndex((item) => item.filename === filename);
  // The open image may not be in the loaded listing (opened from Classic): it shows alone.
  const asset = items[index] ?? current;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  useEffect(() => setZoom(1), [filename]);

  const step = (by: number) => {
    const next = items[index + by];
    if (next) onStep(next.filename);
  };
  const zoomBy = (by: number) => setZoom((current) => ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, ZOOMS.indexOf(current) + by))]);

  return (
    <dialog
      ref={dialog}
      className="lightbox"
      aria-label="Image, full size"
      data-zoom={zoom}
      data-index={index}
      onClose={onClose}
      onKeyDown={(event) => {
        const actions: Record<string, () => void> = {
          ArrowLeft: () => step(-1),
          ArrowRight: () => step(1),
          '+': () => zoomBy(1),
          '=': () => zoomBy(1),
          '-': () => zoomBy(-1),
          '0': () => setZoom(1),
        };
        const action = actions[event.key];
        if (!action) return;
        event.preventDefault();
        action();
      }}
    >
      <div className="lightbox-bar">
        <span className="lightbox-title">{asset?.prompt ?? filename}</span>
        <span>
          {index >= 0 ? index + 1 : '?'} of {items.length}
        </span>
        <button type="button" className="ghost" aria-label="Previous image" disabled={index <= 0} onClick={() => step(-1)}>
          ←
        </button>
        <button
          type="button"
          className="ghost"
          aria-label="Next image"
          disabled={index < 0 || index >= items.length - 1}
          onClick={() => step(1)}
        >
          →
        </button>
        <button type="button" className="ghost" aria-label="Zoom out" onClick={() => zoomBy(-1)}>
          −
        </button>
        <span aria-live="polite">{zoom}×</span>
        <button type="button" className="ghost" aria-label="Zoom in" onClick={() => zoomBy(1)}>
          +
        </button>
        <button type="button" className="ghost" aria-label="Close" onClick={() => dialog.current?.close()}>
          ×
        </button>
      </div>
      <div className="lightbox-stage">
        {asset && (
          <img
            src={withToken(asset.url)}
            alt={asset.prompt}
            style={zoom === 1 ? undefined : { width: `${(asset.width * zoom) / 2}px` }}
            onClick={() => setZoom(zoom === 1 ? 2 : 1)}
          />
        )}
      </div>
    </dialog>
  );
}
