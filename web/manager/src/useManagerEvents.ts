import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { eventsUrl, type InstanceSummary } from './api';

/** `disconnected` only after a break of DISCONNECT_NOTICE_MS: a short one recovers silently (the spec's client rule). */
export type ChannelStatus = 'connecting' | 'open' | 'disconnected';

const DISCONNECT_NOTICE_MS = 8000;
/** Reopening after the browser gave up (a refused reconnect, e.g. 503): first delay, doubling to the cap. */
const REOPEN_FIRST_MS = 500;
const REOPEN_MAX_MS = 4000;

interface ManagerEvent {
  event: string;
  instanceId?: string;
  instance?: InstanceSummary;
}

/**
 * Follows the manager's channel: an `instance_update` patches that worker in
 * the cached list at once (the poll is the safety net), an added or removed
 * worker (or a replay gap) refetches the list. EventSource resumes with
 * Last-Event-ID by itself; when it gives up, the stream is reopened here with
 * `?lastEventId=`.
 */
export function useManagerEvents(): { status: ChannelStatus; opens: number } {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<ChannelStatus>('connecting');
  /** How many times the stream opened (a reconnect counts): the page shows it for tests and people. */
  const [opens, setOpens] = useState(0);
  useEffect(() => {
    let source: EventSource | undefined;
    let lastEventId: string | undefined;
    let reopenTimer: ReturnType<typeof setTimeout> | undefined;
    let noticeTimer: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    let stopped = false;

    const onMessage = (message: MessageEvent<string>) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
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

    const open = () => {
      const url = new URL(eventsUrl());
      if (lastEventId) url.searchParams.set('lastEventId', lastEventId);
      const current = new EventSource(url);
      source = current;
      current.onmessage = onMessage;
      current.onopen = () => {
        attempts = 0;
        clearTimeout(noticeTimer);
        noticeTimer = undefined;
        setStatus('open');
        setOpens((count) => count + 1);
        // Whatever happened during a break, the list is read again.
        void queryClient.invalidateQueries({ queryKey: ['instances'] });
      };
      current.onerror = () => {
        noticeTimer ??= setTimeout(() => setStatus('disconnected'), DISCONNECT_NOTICE_MS);
        if (current.readyState !== EventSource.CLOSED || stopped) return;
        const delay = Math.min(REOPEN_FIRST_MS * 2 ** attempts, REOPEN_MAX_MS);
        attempts += 1;
        reopenTimer = setTimeout(open, delay);
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(reopenTimer);
      clearTimeout(noticeTimer);
      source?.close();
    };
  }, [queryClient]);
  return { status, opens };
}
