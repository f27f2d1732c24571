import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { AgentSession } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { errorHelp } from '../../components/errorHelp';
import { navigate } from '../../router';
import { useUi } from '../../store/ui';
import { agentKeys, createAgentSession, deleteAgentSession, updateAgentSession, useAgentSessions } from './agentApi';
import { plural } from '../../components/format';

export const sessionHref = (id: string) => `/agent#${encodeURIComponent(id)}`;

const failed = (what: string, error: unknown) => {
  const payload = toErrorPayload(error);
  useUi.getState().showToast(`${what} failed: ${errorHelp(payload).meaning} (${payload.code})`);
};

/** A session's waiting and running items, in a few characters. */
function queueNote(session: AgentSession): string {
  const parts = [];
  if (session.queue.running) parts.push(`${session.queue.running} running`);
  if (session.queue.queued) parts.push(`${session.queue.queued} queued`);
  return parts.join(', ');
}

/** The sessions, newest first: open one, start one, rename or delete the open one. */
export function SessionRail({ selected }: { selected?: string }) {
  const queryClient = useQueryClient();
  const sessions = useAgentSessions();
  const [renaming, setRenaming] = useState<string>();
  const [title, setTitle] = useState('');

  const create = async () => {
    try {
      const session = await createAgentSession();
      await queryClient.invalidateQueries({ queryKey: agentKeys.sessions });
      navigate(sessionHref(session.id));
    } catch (error) {
      failed('New session', error);
    }
  };

  const rename = async (id: string) => {
    try {
      await updateAgentSession(id, { title });
      setRenaming(undefined);
      void queryClient.invalidateQueries({ queryKey: agentKeys.all });
    } catch (error) {
      failed('Rename', error);
    }
  };

  const remove = (session: AgentSession) =>
    useUi.getState().showToast(`Delete “${session.title}”? Its waiting turns are cancelled; its images stay in History.`, {
      label: 'Delete session',
      run: () =>
        void deleteAgentSession(session.id)
          .then(() => {
            queryClient.removeQueries({ queryKey: agentKeys.session(session.id) });
            void queryClient.invalidateQueries({ queryKey: agentKeys.sessions });
            if (selected === session.id) navigate('/agent');
          })
          .catch((error: unknown) => failed('Delete', error)),
    });

  return (
    <nav className="agent-rail" aria-label="Agent sessions">
      <button type="button" className="primary" onClick={() => void create()}>
        New session
      </button>
      {sessions.isPending && <p className="hint">Loading…</p>}
      <ul>
        {sessions.data?.map((session) => (
          <li key={session.id} data-session={session.id} aria-current={session.id === selected ? 'true' : undefined}>
            {renaming === session.id ? (
              <form
                className="rail-rename"
                onSubmit={(event) => {
                  event.preventDefault();
                  void rename(session.id);
                }}
              >
                <label className="visually-hidden" htmlFor={`rename-${session.id}`}>
                  New title
                </label>
                <input
                  id={`rename-${session.id}`}
                  value={title}
                  maxLength={200}
                  autoFocus
                  onChange={(event) => setTitle(event.target.value)}
                />
                <button type="submit">Save</button>
                <button type="button" className="ghost" onClick={() => setRenaming(undefined)}>
                  Cancel
                </button>
              </form>
            ) : (
              <>
                <a
                  href={sessionHref(session.id)}
                  onClick={(event) => {
                    event.preventDefault();
                    navigate(sessionHref(session.id));
                  }}
                >
                  <span className="rail-title">{session.title}</span>
                  <span className="hint">{queueNote(session) || plural(session.images.length, 'image')}</span>
                </a>
                {session.id === selected && (
                  <span className="rail-actions">
                    <button
                      type="button"
                      className="ghost"
                      onClick={() => {
                        setTitle(session.title);
                        setRenaming(session.id);
                      }}
                    >
                      Rename
                    </button>
                    <button type="button" className="ghost danger" onClick={() => remove(session)}>
                      Delete
                    </button>
                  </span>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}
