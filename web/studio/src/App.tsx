import { useEffect } from 'react';
import { ConnectionBadge, DisconnectNotice, TokenNotice } from './components/ConnectionNotice';
import { RemixDialog } from './components/RemixDialog';
import { ToastArea } from './components/Toast';
import { useHealth } from './api/queries';
import { DemoBadge } from './components/DemoBadge';
import { NotFoundView } from './components/NotFoundView';
import { ShortcutsOverlay } from './components/ShortcutsOverlay';
import { VIEW_PATHS, followLink, isAppPath, viewOf, type View } from './router';
import { useUi } from './store/ui';
import { AgentView } from './views/agent/AgentView';
import { ClassicView } from './views/classic/ClassicView';
import { NodeView } from './views/node/NodeView';
import { QueuePanel } from './views/queue/QueuePanel';
import { VideoView } from './views/video/VideoView';
import { HistoryView } from './views/history/HistoryView';
import { SettingsView } from './views/settings/SettingsView';

const VIEWS: ReadonlyArray<{ view: View; label: string }> = [
  { view: 'classic', label: 'Classic' },
  { view: 'node', label: 'Node' },
  { view: 'agent', label: 'Agent' },
  { view: 'video', label: 'Video' },
  { view: 'history', label: 'History' },
  { view: 'settings', label: 'Settings' },
];

/** The shell: top bar with the views, connection state and notices; the current view below. */
export function App() {
  const path = useUi((state) => state.path);
  const view = viewOf(path);
  const known = isAppPath(path);
  const health = useHealth();

  useEffect(() => {
    document.title = `${known ? (VIEWS.find((entry) => entry.view === view)?.label ?? 'Studio') : 'Not found'} · svc studio`;
    document.body.dataset.view = known ? view : 'not-found';
  }, [view, known]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">svc studio{health.data?.demo && <DemoBadge />}</span>
        <nav aria-label="Views" className="views-nav">
          {VIEWS.map((entry) => (
            <a
              key={entry.view}
              href={VIEW_PATHS[entry.view]}
              onClick={followLink}
              aria-current={known && entry.view === view ? 'page' : undefined}
            >
              {entry.label}
            </a>
          ))}
        </nav>
        <QueuePanel />
        <ConnectionBadge />
      </header>
      <DisconnectNotice />
      <TokenNotice />
      <main id="main" tabIndex={-1} className={`view view-${known ? view : 'not-found'}`}>
        {!known && <NotFoundView path={path} />}
        {known && view === 'classic' && <ClassicView />}
        {view === 'node' && <NodeView />}
        {view === 'agent' && <AgentView />}
        {view === 'video' && <VideoView />}
        {view === 'history' && <HistoryView />}
        {view === 'settings' && <SettingsView />}
      </main>
      <RemixDialog />
      <ShortcutsOverlay />
      <ToastArea />
    </div>
  );
}
