import { useEffect, useRef, useState } from 'react';
import { connectEventStream } from '../../shared/event-stream';
import { setUnauthorizedHandler, token } from './api';
import { Composer, QueueState } from './Composer';
import { Conversation } from './Conversation';
import { model, useChat } from './model';
import { ShortcutsOverlay } from './Shortcuts';
import { Sidebar } from './Sidebar';
import { WorkBar } from './WorkBar';

/** Typing in a field: single-key shortcuts (`?`, `/`) are then text. */
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

export function App() {
  const chat = useChat();
  const [help, setHelp] = useState(false);
  /** Phones: the session list is a drawer over the conversation. */
  const [drawer, setDrawer] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const promptRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    document.body.dataset.hasToken = String(Boolean(token));
    setUnauthorizedHandler(model.showTokenHelp);
    // Events first, so nothing published while the history loads is missed (duplicates are dropped by id).
    const stop = connectEventStream({ token, onEvent: model.handleEvent, onConnection: model.setConnection, onNotice: model.setNotice });
    void model.start();
    return stop;
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setHelp(false);
        setDrawer(false);
      } else if (event.altKey && event.code === 'KeyX') {
        event.preventDefault();
        model.submit('/cancel');
      } else if (event.altKey && event.code === 'KeyN') {
        event.preventDefault();
        void model.newSession();
      } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setDrawer(true);
        searchRef.current?.focus();
      } else if (!typing(event.target) && !event.ctrlKey && !event.metaKey && !event.altKey) {
        if (event.key === '?') setHelp((shown) => !shown);
        else if (event.key === '/') {
          event.preventDefault();
          promptRef.current?.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="app" data-drawer={String(drawer)}>
      <div id="notice" className="notice" role="alert" hidden={!chat.notice}>
        Disconnected from the server. Reconnecting…
      </div>
      <Sidebar searchRef={searchRef} onPicked={() => setDrawer(false)} />
      <div className="scrim" onClick={() => setDrawer(false)} />
      <main className="main">
        <header className="session-header">
          <button type="button" className="menu" aria-label="Sessions" onClick={() => setDrawer((open) => !open)}>
            ☰
          </button>
          <h2 id="session-title">{chat.currentSession ? chat.currentSession.title || 'Untitled session' : '…'}</h2>
          <QueueState />
          <button
            type="button"
            className="help"
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
            onClick={() => setHelp(true)}
          >
            ?
          </button>
        </header>
        <WorkBar />
        <Conversation />
        <Composer promptRef={promptRef} />
      </main>
      {help && <ShortcutsOverlay onClose={() => setHelp(false)} />}
    </div>
  );
}
