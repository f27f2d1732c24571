import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { toErrorPayload } from '../../api/http';
import type { ErrorPayload } from '../../api/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { navigate } from '../../router';
import { createSession, deleteSession, listSessions, renameSession } from './graphApi';

export const SESSIONS_KEY = ['node', 'sessions'] as const;

export const useSessions = () => useQuery({ queryKey: SESSIONS_KEY, queryFn: listSessions });

export const sessionPath = (id: string | undefined): string => (id ? `/node#${encodeURIComponent(id)}` : '/node');

type Mode = { kind: 'idle' } | { kind: 'create' } | { kind: 'rename' } | { kind: 'delete' };

/** The graph sessions: pick one, create, rename, delete (asked twice). */
export function SessionPicker({ sessionId }: { sessionId: string | undefined }) {
  const queryClient = useQueryClient();
  const sessions = useSessions();
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const [title, setTitle] = useState('');
  const [error, setError] = useState<ErrorPayload>();
  const current = sessions.data?.sessions.find((session) => session.id === sessionId);

  const run = async (action: () => Promise<string | undefined>) => {
    setError(undefined);
    try {
      const next = await action();
      await queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
      setMode({ kind: 'idle' });
      setTitle('');
      if (next !== sessionId) navigate(sessionPath(next));
    } catch (failure) {
      setError(toErrorPayload(failure));
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mode.kind === 'create') void run(async () => (await createSession(title)).id);
    if (mode.kind === 'rename' && sessionId) void run(async () => (await renameSession(sessionId, title)).id);
  };

  return (
    <div className="session-picker">
      <label>
        <span className="visually-hidden">Session</span>
        <select
          id="node-session"
          value={sessionId ?? ''}
          onChange={(event) => navigate(sessionPath(event.target.value || undefined))}
          disabled={sessions.isPending}
        >
          <option value="">{sessions.data?.sessions.length ? 'Choose a session' : 'No session yet'}</option>
          {sessions.data?.sessions.map((session) => (
            <option key={session.id} value={session.id}>
              {session.title} ({session.nodeCount})
            </option>
          ))}
        </select>
      </label>
      {mode.kind === 'idle' && (
        <>
          <button type="button" className="session-new" onClick={() => setMode({ kind: 'create' })}>
            New session
          </button>
          <button
            type="button"
            className="ghost session-rename"
            disabled={!current}
            onClick={() => (setTitle(current?.title ?? ''), setMode({ kind: 'rename' }))}
          >
            Rename
          </button>
          <button type="button" className="ghost session-delete" disabled={!current} onClick={() => setMode({ kind: 'delete' })}>
            Delete
          </button>
        </>
      )}
      {(mode.kind === 'create' || mode.kind === 'rename') && (
        <form className="session-title-form" onSubmit={submit}>
          <label>
            <span className="visually-hidden">{mode.kind === 'create' ? 'New session title' : 'New title'}</span>
            <input
              id="node-session-title"
              value={title}
              maxLength={200}
              required
              autoFocus
              placeholder="Session title"
              onChange={(event) => setTitle(event.target.value)}
            />
          </label>
          <button type="submit" className="primary">
            {mode.kind === 'create' ? 'Create' : 'Rename'}
          </button>
          <button type="button" className="ghost" onClick={() => setMode({ kind: 'idle' })}>
            Cancel
          </button>
        </form>
      )}
      {mode.kind === 'delete' && current && (
        <span className="session-delete-confirm" role="group" aria-label="Delete the session?">
          Delete “{current.title}”? Its images stay in History.
          <button
            type="button"
            className="danger session-delete-yes"
            onClick={() => void run(async () => (await deleteSession(current.id), undefined))}
          >
            Delete
          </button>
          <button type="button" className="ghost" onClick={() => setMode({ kind: 'idle' })}>
            Keep
          </button>
        </span>
      )}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
