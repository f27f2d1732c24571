import { useEffect } from 'react';
import { ConnectionBadge, DisconnectNotice, TokenNotice } from './components/ConnectionNotice';
import { RemixDialog } from './components/RemixDialog';
import { ToastArea } from './components/Toast';
import { useHealth } from './api/queries';
import { VIEW_PATHS, followLink, viewOf, type View } from './router';
import { useUi } from './store/ui';
import { ClassicView } from './views/classic/ClassicView';
import { HistoryView } from './views/history/HistoryView';
import { SettingsView } from './views/settings/SettingsView';

const VIEWS: ReadonlyArray<{ view: View; label: string }> = [
  { view: 'classic', label: 'Classic' },
  { view: 'history', label: 'History' },
  { view: 'settings', label: 'Settings' },
];

/** The shell: top bar with the views, connection state and notices; the current view below. */
export function App() {
  const path = useUi((state) => state.path);
  const view = viewOf(path);
  const health = useHealth();

  useEffect(() => {
    document.title = `${VIEWS.find((entry) => entry.view === view)?.label ?? 'Studio'} · svc studio`;
    document.body.dataset.view = view;
  }, [view]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">
          svc studio{health.data?.demo && <span className="demo-badge" title="Simulated upstreams: no keys, nothing billed">demo</span>}
        </span>
        <nav aria-label="Views" className="views-nav">
          {VIEWS.map((entry) => (
            <a key={entry.view} href={VIEW_PATHS[entry.view]} onClick={followLink} aria-current={entry.view === view ? 'page' : undefined}>
              {entry.label}
            </a>
          ))}
        </nav>
        <ConnectionBadge />
      </header>
      <DisconnectNotice />
      <TokenNotice />
      <main id="main" tabIndex={-1} className={`view view-${view}`}>
        {view === 'classic' && <ClassicView />}
        {view === 'history' && <HistoryView />}
        {view === 'settings' && <SettingsView />}
      </main>
      <RemixDialog />
      <ToastArea />
    </div>
  );
}
