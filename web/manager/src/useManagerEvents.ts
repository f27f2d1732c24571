import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { connectEventStream } from '../../shared/event-stream';
import { token, type InstanceSummary } from './api';

/** `disconnected` only after a break of DISCONNECT_NOTICE_MS: a short one recovers silently (the spec's client rule). */
export type ChannelStatus = 'connecting' | 'open' | 'disconnected';

/** Changes of a worker after which its events list is read again. */
const EVENTS_CHANGES: ReadonlySet<string> = new Set([
  'backlog',
  'snapshot',
  'message',
  'agent_tool',
  'agent_done',
  'goal_update',
  'orc_state',
  'session_switched',
]);

/**
 * Follows the manager's channel (web/shared/event-stream.ts: resume by cursor,
 * backoff, the 8 s notice): an `instance_update` patches that worker in the
 * cached list at once (the poll is the safety net), an added or removed worker
 * (or a replay gap) refetches the list, and so does every (re)open.
 */
export function useManagerEvents(): { status: ChannelStatus; opens: number } {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<ChannelStatus>('connecting');
  /** How many times the stream opened (a reconnect counts): the page shows it for tests and people. */
  const [opens, setOpens] = useState(0);
  useEffect(
    () =>
      connectEventStream({
        token,
        onEvent: (event) => {
          if (event.event === 'instance_update' && event.instance) {
            const updated = event.instance as InstanceSummary;
            queryClient.setQueryData<InstanceSummary[]>(['instances'], (list) =>
              list?.map((instance) => (instance.id === updated.id ? updated : instance)),
            );
            // Its recent events: read again when something worth listing happened (not on every output piece).
            if (EVENTS_CHANGES.has(String(event.change))) void queryClient.invalidateQueries({ queryKey: ['events', updated.id] });
          } else if (event.event === 'instance_added' || event.event === 'instance_removed' || event.event === 'replay_gap') {
            void queryClient.invalidateQueries({ queryKey: ['instances'] });
          }
        },
        onOpen: () => {
          setStatus('open');
          setOpens((count) => count + 1);
          // Whatever happened during a break, the list is read again.
          void queryClient.invalidateQueries({ queryKey: ['instances'] });
        },
        onNotice: (shown) => {
          if (shown) setStatus('disconnected');
        },
      }),
    [queryClient],
  );
  return { status, opens };
}
