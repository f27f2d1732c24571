import { useState, type RefObject } from 'react';
import { useChat } from './model';
import { plural } from './time';

/** The sessions, newest activity first as the server lists them, with a search over their titles. */
export function Sidebar({ searchRef, onPicked }: { searchRef: RefObject<HTMLInputElement | null>; onPicked(): void }) {
  const chat = useChat();
  const [query, setQuery] = useState('');
  const [editing, setEditing] = useState<string>();
  const [draft, setDraft] = useState('');
  const needle = query.trim().toLowerCase();
  const shown = needle
    ? chat.sessions.filter((session) => (session.title || 'Untitled session').toLowerCase().includes(needle))
    : chat.sessions;
  return (
    <aside className="sidebar">
      <header className="sidebar-header">
        <h1>
          <img src="/favicon.svg" alt="" width="20" height="20" /> svc-chat
        </h1>
        <button id="new-session" type="button" title="New session (Alt+N)" onClick={() => void chat.newSession().then(onPicked)}>
          New session
        </button>
      </header>
      <input
        id="session-search"
        ref={searchRef}
        type="search"
        className="session-search"
        placeholder="Search sessions (Ctrl+K)"
        aria-label="Search sessions"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      <ul id="sessions" className="sessions" aria-label="Sessions">
        {shown.map((session) =>
          editing === session.id ? (
            <li key={session.id} className="renaming">
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  setEditing(undefined);
                  void chat.renameSession(session.id, draft);
                }}
              >
                <input
                  aria-label="Session title"
                  autoFocus
                  value={draft}
                  maxLength={80}
                  onChange={(event) => setDraft(event.target.value)}
                  onKeyDown={(event) => event.key === 'Escape' && setEditing(undefined)}
                />
                <button type="submit">Save</button>
              </form>
            </li>
          ) : (
            <li key={session.id}>
              <button
                type="button"
                className="session"
                data-session-id={session.id}
                aria-current={session.id === chat.currentSessionId ? 'true' : 'false'}
                onClick={() => void chat.switchSession(session.id).then(onPicked)}
              >
                {session.title || 'Untitled session'}
                <small>{plural(session.messageCount, 'message')}</small>
              </button>
              <span className="session-actions">
                <button
                  type="button"
                  className="rename"
                  title="Rename"
                  aria-label={`Rename ${session.title || 'Untitled session'}`}
                  onClick={() => {
                    setDraft(session.title);
                    setEditing(session.id);
                  }}
                >
                  ✎
                </button>
                <button
                  type="button"
                  className="delete"
                  title="Delete"
                  aria-label={`Delete ${session.title || 'Untitled session'}`}
                  onClick={() =>
                    window.confirm(`Delete “${session.title || 'Untitled session'}” and its messages?`) &&
                    void chat.deleteSession(session.id)
                  }
                >
                  🗑
                </button>
              </span>
            </li>
          ),
        )}
        {needle && shown.length === 0 && <li className="no-match">No session matches “{query}”.</li>}
      </ul>
      <footer className="sidebar-footer">
        <span id="connection" className="connection">
          {chat.connection === 'open' ? 'connected' : chat.connection === 'reconnecting' ? 'reconnecting…' : 'connecting…'}
        </span>
        <span className="hint">
          <kbd>?</kbd> shortcuts
        </span>
      </footer>
    </aside>
  );
}
