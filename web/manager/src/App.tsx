import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, listInstances, type InstanceSummary } from './api';
import { useManagerEvents } from './useManagerEvents';
import { WorkerCard } from './WorkerCard';

/** How often the list is polled; the channel brings changes sooner. */
const POLL_MS = 2000;

/** "1 worker", "2 workers". */
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The state filters, each a test on a worker. */
const FILTERS = {
  all: () => true,
  online: (instance: InstanceSummary) => instance.health === 'online',
  offline: (instance: InstanceSummary) => instance.health !== 'online',
  busy: (instance: InstanceSummary) => instance.queue.active || instance.queue.pending > 0,
  idle: (instance: InstanceSummary) => instance.health === 'online' && !instance.queue.active && instance.queue.pending === 0,
  errors: (instance: InstanceSummary) =>
    Boolean(instance.lastError) || ['error', 'crashed', 'timeout'].includes(instance.turns.at(-1)?.status ?? ''),
} as const;
type Filter = keyof typeof FILTERS;

export function App() {
  const queryClient = useQueryClient();
  const { status: channel, opens } = useManagerEvents();
  const instances = useQuery({ queryKey: ['instances'], queryFn: listInstances, refetchInterval: POLL_MS });
  const [url, setUrl] = useState('');
  const [notice, setNotice] = useState<string>();
  const [filter, setFilter] = useState<Filter>('all');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['instances'] });
  const failed = (error: Error) => setNotice(error.message);

  const add = useMutation({
    mutationFn: (workerUrl: string) => api('/api/instances', { method: 'POST', body: { url: workerUrl } }),
    onSuccess: () => {
      setUrl('');
      setNotice(undefined);
      void refresh();
    },
    onError: failed,
  });
  const launch = useMutation({
    mutationFn: () => api('/api/instances/launch', { method: 'POST', body: { demo: true } }),
    onSuccess: () => void refresh(),
    onError: failed,
  });

  const onAdd = (event: FormEvent) => {
    event.preventDefault();
    if (url.trim()) add.mutate(url.trim());
  };

  const list: InstanceSummary[] = instances.data ?? [];
  const online = list.filter(FILTERS.online).length;
  const shown = list.filter(FILTERS[filter]);
  return (
    <div className="app" data-ready={instances.isSuccess ? 'true' : 'false'} data-channel={channel} data-opens={opens}>
      <header className="top">
        <h1>
          <img src="/favicon.svg" alt="" width="20" height="20" /> svc-chat manager
        </h1>
        <span className="counts">
          {plural(list.length, 'worker')} · {online} online
        </span>
        <span className={`channel channel-${channel}`}>
          {channel === 'open' ? 'live' : channel === 'disconnected' ? 'disconnected, reconnecting…' : 'connecting…'}
        </span>
        <form className="add" onSubmit={onAdd}>
          <input aria-label="Worker URL" placeholder="http://127.0.0.1:3344" value={url} onChange={(event) => setUrl(event.target.value)} />
          <button type="submit" disabled={add.isPending}>
            Follow
          </button>
        </form>
        <button type="button" className="primary" onClick={() => launch.mutate()} disabled={launch.isPending}>
          {launch.isPending ? 'Starting…' : 'Launch demo worker'}
        </button>
      </header>
      {notice && (
        <div className="notice" role="alert">
          {notice}
          <button type="button" onClick={() => setNotice(undefined)}>
            ×
          </button>
        </div>
      )}
      {instances.isError && <div className="notice">Could not load the workers: {instances.error.message}</div>}
      {instances.isSuccess && list.length === 0 && <p className="empty">No workers yet: follow one by URL, or launch one.</p>}
      {list.length > 0 && (
        <nav className="filters" aria-label="Filter by state">
          {(Object.keys(FILTERS) as Filter[]).map((name) => (
            <button
              key={name}
              type="button"
              className="filter"
              data-filter={name}
              aria-pressed={filter === name}
              onClick={() => setFilter(name)}
            >
              {name} <span className="count">{list.filter(FILTERS[name]).length}</span>
            </button>
          ))}
        </nav>
      )}
      {list.length > 0 && shown.length === 0 && <p className="empty">No worker is {filter}.</p>}
      <main className="grid">
        {shown.map((instance) => (
          <WorkerCard key={instance.id} instance={instance} onError={failed} onChanged={() => void refresh()} />
        ))}
      </main>
    </div>
  );
}
