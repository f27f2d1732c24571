import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, recentEvents, type InstanceSummary } from './api';

interface Props {
  instance: InstanceSummary;
  onError(error: Error): void;
  onChanged(): void;
}

function ago(iso: string | null): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 60 ? `${seconds}s ago` : seconds < 3600 ? `${Math.round(seconds / 60)}m ago` : new Date(iso).toLocaleString();
}

/** One worker: health, latest message, agent state and queue, goal, PABCD phase; lifecycle for launched ones. */
export function WorkerCard({ instance, onError, onChanged }: Props) {
  const [showEvents, setShowEvents] = useState(false);
  const events = useQuery({ queryKey: ['events', instance.id], queryFn: () => recentEvents(instance.id), enabled: showEvents, refetchInterval: showEvents ? 2000 : false });
  const act = useMutation({
    mutationFn: (action: 'start' | 'stop' | 'restart' | 'remove') =>
      action === 'remove' ? api(`/api/instances/${instance.id}`, { method: 'DELETE' }) : api(`/api/instances/${instance.id}/${action}`, { method: 'POST' }),
    onSuccess: onChanged,
    onError,
  });
  const message = instance.latestMessage;
  return (
    <article className="card" data-instance-id={instance.id} data-url={instance.url ?? ''} data-health={instance.health} data-agent-state={instance.agentState}>
      <header>
        <span className={`health health-${instance.health}`}>{instance.health}</span>
        <span className="url">{instance.url ?? '(not started)'}</span>
        <span className="source">{instance.source}</span>
      </header>
      <section className="latest">
        <h3>Latest message</h3>
        {message ? (
          <p className={`message role-${message.role}`}>
            <strong>{message.role}</strong>
            {message.status && message.status !== 'ok' ? <em> ({message.status})</em> : null}: <span className="content">{message.content}</span>
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
          {instance.queue.active ? 'running' : 'idle'}, {instance.queue.pending} waiting
        </dd>
        <dt>Goal</dt>
        <dd className="goal">{instance.goal ? `${instance.goal.objective} (${instance.goal.status})${instance.goal.autoStopped ? ' — stopped' : ''}` : 'none'}</dd>
        <dt>PABCD</dt>
        <dd className="orc">{instance.orc.phase === 'idle' ? 'idle' : `${instance.orc.phase} (${instance.orc.status})`}</dd>
        <dt>Last seen</dt>
        <dd className="last-seen">{ago(instance.lastSeen)}</dd>
      </dl>
      {instance.lastError && <p className="error">{instance.lastError}</p>}
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
        <button type="button" onClick={() => setShowEvents((shown) => !shown)}>
          {showEvents ? 'Hide events' : 'Events'}
        </button>
        <button type="button" className="remove" disabled={act.isPending} onClick={() => act.mutate('remove')}>
          Remove
        </button>
      </footer>
      {showEvents && (
        <ol className="events">
          {(events.data ?? []).map((event, index) => (
            <li key={`${event.at}-${index}`}>
              <code>{event.event}</code> {event.summary}
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}
