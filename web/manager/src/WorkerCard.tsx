import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, recentEvents, type InstanceSummary, type TurnView } from './api';

interface Props {
  instance: InstanceSummary;
  onError(error: Error): void;
  onChanged(): void;
}

/** Events shown on every card; "Events" shows up to EVENTS_MORE. */
const EVENTS_SHOWN = 5;
const EVENTS_MORE = 30;
/** The events list is read again this often (the channel also asks for it after a message or a finished turn). */
const EVENTS_POLL_MS = 15_000;

function ago(iso: string | null): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 60 ? `${seconds}s ago` : seconds < 3600 ? `${Math.round(seconds / 60)}m ago` : new Date(iso).toLocaleString();
}

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A turn's colour class: ok, error (error, crashed, timeout), or stopped (cancelled, interrupted). */
const turnClass = (status: string) => (status === 'ok' ? 'ok' : status === 'cancelled' || status === 'interrupted' ? 'stopped' : 'error');

/** The worker's last turns as a strip, oldest first, and what it does now (busy or idle). */
function Timeline({ turns, busy }: { turns: TurnView[]; busy: boolean }) {
  return (
    <ol className="timeline" aria-label="Recent turns">
      {turns.map((turn) => (
        <li
          key={turn.traceId}
          className={`turn turn-${turnClass(turn.status)}`}
          data-status={turn.status}
          title={`${turn.status} at ${time(turn.at)}`}
        />
      ))}
      <li className={`turn turn-now turn-${busy ? 'busy' : 'idle'}`} title={busy ? 'busy now' : 'idle now'} />
    </ol>
  );
}

/** One worker: health, latest message, agent state and queue, goal, PABCD phase, its turns and recent events; lifecycle for launched ones. */
export function WorkerCard({ instance, onError, onChanged }: Props) {
  const [more, setMore] = useState(false);
  const limit = more ? EVENTS_MORE : EVENTS_SHOWN;
  const events = useQuery({
    queryKey: ['events', instance.id, limit],
    queryFn: () => recentEvents(instance.id, limit),
    refetchInterval: EVENTS_POLL_MS,
  });
  const act = useMutation({
    mutationFn: (action: 'start' | 'stop' | 'restart' | 'remove') =>
      action === 'remove'
        ? api(`/api/instances/${instance.id}`, { method: 'DELETE' })
        : api(`/api/instances/${instance.id}/${action}`, { method: 'POST' }),
    onSuccess: onChanged,
    onError,
  });
  const message = instance.latestMessage;
  const busy = instance.queue.active;
  return (
    <article
      className="card"
      data-instance-id={instance.id}
      data-url={instance.url ?? ''}
      data-health={instance.health}
      data-agent-state={instance.agentState}
    >
      <header>
        <span className={`health health-${instance.health}`}>{instance.health}</span>
        <span className="url">{instance.url ?? '(not started)'}</span>
        <span className="source">{instance.source}</span>
        {instance.url && (
          <a className="open button" href={instance.url} target="_blank" rel="noreferrer noopener" title="Open this worker's chat page">
            Open ↗
          </a>
        )}
      </header>
      <section className="latest">
        <h3>Latest message</h3>
        {message ? (
          <p className={`message role-${message.role}`}>
            <strong>{message.role}</strong>
            {message.status && message.status !== 'ok' ? <em> ({message.status})</em> : null}:{' '}
            <span className="content">{message.content}</span>
          </p>
        ) : (
          <p className="message none">none yet</p>
        )}
      </section>
      <dl>
        <dt>Agent</dt>
        <dd className="agent-state">{instance.agentState}</dd>
        <dt>Queue</dt>
        <dd className="queue">
          {busy ? 'running' : 'idle'}, {instance.queue.pending} waiting
        </dd>
        <dt>Goal</dt>
        <dd className="goal">
          {instance.goal ? `${instance.goal.objective} (${instance.goal.status})${instance.goal.autoStopped ? ' — stopped' : ''}` : 'none'}
        </dd>
        <dt>PABCD</dt>
        <dd className="orc">{instance.orc.phase === 'idle' ? 'idle' : `${instance.orc.phase} (${instance.orc.status})`}</dd>
        <dt>Turns</dt>
        <dd>
          <Timeline turns={instance.turns} busy={busy} />
        </dd>
        <dt>Last seen</dt>
        <dd className="last-seen">{ago(instance.lastSeen)}</dd>
      </dl>
      {instance.lastError && <p className="error">{instance.lastError}</p>}
      <section className="recent">
        <h3>Recent events</h3>
        {events.data && events.data.length > 0 ? (
          <ol className="events">
            {events.data.map((event, index) => (
              <li
                key={`${event.at}-${index}`}
                className={event.replayed ? 'replayed' : undefined}
                title={event.replayed ? 'from before the manager followed this worker' : time(event.at)}
              >
                <code>{event.event}</code> {event.summary}
              </li>
            ))}
          </ol>
        ) : (
          <p className="none">{events.isPending ? 'loading…' : 'none yet'}</p>
        )}
      </section>
      <footer>
        {instance.managed && (
          <>
            <button type="button" disabled={act.isPending || instance.running} onClick={() => act.mutate('start')}>
              Start
            </button>
            <button type="button" disabled={act.isPending || !instance.running} onClick={() => act.mutate('stop')}>
              Stop
            </button>
            <button type="button" disabled={act.isPending} onClick={() => act.mutate('restart')}>
              Restart
            </button>
          </>
        )}
        <button type="button" onClick={() => setMore((shown) => !shown)}>
          {more ? 'Fewer events' : 'Events'}
        </button>
        <button type="button" className="remove danger" disabled={act.isPending} onClick={() => act.mutate('remove')}>
          Remove
        </button>
      </footer>
    </article>
  );
}
