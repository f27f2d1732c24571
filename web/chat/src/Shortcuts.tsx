import { ShortcutList } from '../../shared/ShortcutList';

/** The keyboard shortcuts, declared once: the overlay lists them and App binds them. */
export const SHORTCUTS = [
  { keys: 'Enter', does: 'Send the message (Shift+Enter: new line)' },
  { keys: 'Alt+X', does: 'Cancel the running answer' },
  { keys: 'Alt+N', does: 'New session (reuses an untouched empty one)' },
  { keys: 'Ctrl+K', does: 'Search the sessions' },
  { keys: '/', does: 'Focus the message box' },
  { keys: '?', does: 'Show or hide this list' },
  { keys: 'Esc', does: 'Close this list or the session menu' },
] as const;

export function ShortcutsOverlay({ onClose }: { onClose(): void }) {
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" onClick={onClose}>
      <div className="overlay-panel" onClick={(event) => event.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <ShortcutList shortcuts={SHORTCUTS} className="shortcuts" />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
