import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, listInstances, type InstanceSummary } from './api';
import { useManagerEvents } from './useManagerEvents';
import { WorkerCard } from './WorkerCard';

/** How often the list is polled; the channel brings changes sooner. */
const POLL_MS = 2000;

export function App() {
  const queryClient = useQueryClient();
  const { status: channel, opens } = useManagerEvents();
  const instances = useQuery({ queryKey: ['instances'], queryFn: listInstances, refetchInterval: POLL_MS });
  const [url, setUrl] = useState('');
  const [notice, setNotice] = useState<string>();
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
  const online = list.filter((instance) => instance.health === 'online').length;
  return (
    <div className="app" data-ready={instances.isSuccess ? 'true' : 'false'} data-channel={channel} data-opens={opens}>
      <header className="top">
        <h1>svc-chat manager</h1>
        <span className="counts">
          {list.length} workers · {online} online
        </span>
        <span className={`channel channel-${channel}`}>{channel === 'open' ? 'live' : channel === 'disconnected' ? 'disconnected, reconnecting…' : 'connecting…'}</span>
        <form className="add" onSubmit={onAdd}>
          <input aria-label="Worker URL" placeholder="http://127.0.0.1:3344" value={url} onChange={(event) => setUrl(event.target.value)} />
          <button type="submit" disabled={add.isPending}>
            Follow
          </button>
        </form>
        <button type="button" onClick={() => launch.mutate()} disabled={launch.isPending}>
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
      <main className="grid">
        {list.map((instance) => (
          <WorkerCard key={instance.id} instance={instance} onError={failed} onChanged={() => void refresh()} />
        ))}
      </main>
    </div>
  );
}
