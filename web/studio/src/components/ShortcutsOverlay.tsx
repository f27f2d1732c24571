import { useEffect, useRef, useState } from 'react';
import { ShortcutList, type Shortcut } from '../../../shared/ShortcutList';

/** The keyboard shortcuts of the app, listed once: the `?` overlay shows these. */
export const SHORTCUTS: readonly Shortcut[] = [
  { keys: '?', does: 'Show or hide this list' },
  { keys: 'Ctrl+Enter (⌘+Enter)', does: 'Generate, in the prompt of Classic' },
  { keys: 'Esc', does: 'Close the open dialog, full-size image or image details' },
  { keys: '← →', does: 'History: move between images; full size: previous and next image' },
  { keys: '+ − 0', does: 'Full-size image: zoom in, out, back to fit' },
];

const typing = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** `?` (outside a text field) opens the list of shortcuts; Esc or `?` closes it. */
export function ShortcutsOverlay() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '?' || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      event.preventDefault();
      setOpen((shown) => !shown);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  return (
    <dialog ref={dialog} className="dialog shortcuts" aria-labelledby="shortcuts-title" onClose={() => setOpen(false)}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <ShortcutList shortcuts={SHORTCUTS} />
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </dialog>
  );
}
