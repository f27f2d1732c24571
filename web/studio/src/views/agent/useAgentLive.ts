import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useStreamEvents } from '../../live/streamEvents';
import { agentKeys } from './agentApi';

/** An item's last `progress` step (planning, planned, generating n of m, saved). */
export interface ItemProgress {
  step: string;
  action?: string;
  variant?: number;
  variants?: number;
}

/**
 * Follows topic `agent`: each event reads the session (and the list) again;
 * `progress` steps are kept here, by item, for the queue panel. A replay gap
 * reads everything again.
 */
export function useAgentLive(): Record<string, ItemProgress> {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<Record<string, ItemProgress>>({});
  useStreamEvents((event) => {
    if (event.topic === 'system' && event.event === 'replay_gap') {
      void queryClient.invalidateQueries({ queryKey: agentKeys.all });
      return;
    }
    if (event.topic !== 'agent' || typeof event.sessionId !== 'string') return;
    if (event.event === 'progress' && typeof event.itemId === 'string') {
      const itemId = event.itemId;
      setProgress((current) => ({
        ...current,
        [itemId]: {
          step: String(event.step),
          action: event.action as string | undefined,
          variant: event.variant as number | undefined,
          variants: event.variants as number | undefined,
        },
      }));
    }
    void queryClient.invalidateQueries({ queryKey: agentKeys.session(event.sessionId) });
    if (event.event === 'item' || event.event === 'current_image') void queryClient.invalidateQueries({ queryKey: agentKeys.sessions });
  });
  return progress;
}

export function progressText(progress: ItemProgress | undefined): string | undefined {
  if (!progress) return undefined;
  switch (progress.step) {
    case 'planning':
      return 'Planning…';
    case 'planned':
      return progress.action === 'answer' ? 'Answering' : `Planned: ${progress.action ?? 'image'}`;
    case 'generating':
      return progress.variants && progress.variants > 1 ? `Generating ${progress.variant ?? 1} of ${progress.variants}` : 'Generating';
    case 'saved':
      return 'Saved';
    default:
      return progress.step;
  }
}
