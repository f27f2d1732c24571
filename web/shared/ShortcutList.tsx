/** A keyboard shortcut as an app's `?` overlay lists it. */
export interface Shortcut {
  readonly keys: string;
  readonly does: string;
}

/** The list both apps' overlays show: each shortcut's keys and what it does. */
export function ShortcutList({ shortcuts, className }: { shortcuts: readonly Shortcut[]; className?: string }) {
  return (
    <dl className={className}>
      {shortcuts.map((shortcut) => (
        <div key={shortcut.keys}>
          <dt>
            <kbd>{shortcut.keys}</kbd>
          </dt>
          <dd>{shortcut.does}</dd>
        </div>
      ))}
    </dl>
  );
}
