import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { eventsUrl, type InstanceSummary } from './api';

export type ChannelStatus = 'connecting' | 'open' | 'reconnecting';

interface ManagerEvent {
  event: string;
  instanceId?: string;
  instance?: InstanceSummary;
}

/**
 * Follows the manager's channel: an `instance_update` patches that worker in
 * the cached list at once (the poll is the safety net), an added or removed
 * worker refetches the list. EventSource reconnects by itself and resumes
 * with Last-Event-ID.
 */
export function useManagerEvents(): ChannelStatus {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<ChannelStatus>('connecting');
  useEffect(() => {
    const source = new EventSource(eventsUrl());
    source.onopen = () => setStatus('open');
    source.onerror = () => setStatus('reconnecting');
    source.onmessage = (message: MessageEvent<string>) => {
      let event: ManagerEvent;
      try {
        event = JSON.parse(message.data) as ManagerEvent;
      } catch {
        return;
      }
      if (event.event === 'instance_update' && event.instance) {
        const updated = event.instance;
        queryClient.setQueryData<InstanceSummary[]>(['instances'], (list) => list?.map((instance) => (instance.id === updated.id ? updated : instance)));
      } else if (event.event === 'instance_added' || event.event === 'instance_removed' || event.event === 'replay_gap') {
        void queryClient.invalidateQueries({ queryKey: ['instances'] });
      }
    };
    return () => source.close();
  }, [queryClient]);
  return status;
}
