import { useQuery } from '@tanstack/react-query';
import type { JobPhase } from '../../api/contract';
import { LIVE_JOBS_KEY, type LiveJob } from '../../live/liveJobs';

/** What a running node shows of its job. */
export interface NodeProgress {
  status: LiveJob['status'];
  phase?: JobPhase;
  partial?: string;
  queuePosition?: number;
}

/**
 * One job's progress from the live jobs, selected so that a component
 * re-renders only when its own job changes (not on every event of the page).
 */
export function useNodeProgress(requestId: string | undefined): NodeProgress | undefined {
  return useQuery<LiveJob[], Error, NodeProgress | undefined>({
    queryKey: LIVE_JOBS_KEY,
    queryFn: () => [],
    initialData: [],
    staleTime: Infinity,
    gcTime: Infinity,
    enabled: requestId !== undefined,
    select: (jobs) => {
      const job = jobs.find((candidate) => candidate.requestId === requestId);
      if (!job) return undefined;
      return { status: job.status, phase: job.phase, partial: job.slots[0]?.partial, queuePosition: job.queuePosition };
    },
  }).data;
}
