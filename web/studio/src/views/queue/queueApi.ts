import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../api/http';
import type { InflightBody } from '../../api/responses';
import { LIVE_JOBS_KEY } from '../../live/liveJobs';
import type { FinishedJobsAnswer } from './types';

// The engine's jobs as the queue panel reads them: the unfinished ones
// (GET /api/inflight: every client's, not only this page's) and those that
// ended in the last hour (GET /api/jobs). Read again whenever the page hears
// of a job starting or ending, and on a timer as a floor.

export const QUEUE_KEY = ['queue'] as const;
const INFLIGHT_KEY = [...QUEUE_KEY, 'inflight'] as const;
const FINISHED_KEY = [...QUEUE_KEY, 'finished'] as const;

export const useInflight = (open: boolean) =>
  useQuery({
    queryKey: INFLIGHT_KEY,
    queryFn: ({ signal }) => api<InflightBody>('/api/inflight', { signal }).then((body) => body.jobs),
    refetchInterval: open ? 2000 : 10_000,
  });

export const useFinished = (open: boolean) =>
  useQuery({
    queryKey: FINISHED_KEY,
    queryFn: ({ signal }) => api<FinishedJobsAnswer>('/api/jobs', { signal }).then((body) => body.jobs),
    enabled: open,
    refetchInterval: open ? 5000 : false,
  });

export const cancelQueued = (requestId: string) => api(`/api/inflight/${encodeURIComponent(requestId)}`, { method: 'DELETE' });

export const retryJob = (requestId: string) => api(`/api/jobs/${encodeURIComponent(requestId)}/retry`, { method: 'POST', body: {} });

/** Live jobs whose state changed: a start, an end, a new queue place (not partials or progress). */
function lifecycleOf(queryClient: QueryClient): string {
  const jobs =
    queryClient.getQueryData<Array<{ requestId: string; status: string; queuePosition?: number; cancelling?: boolean }>>(LIVE_JOBS_KEY) ??
    [];
  return jobs.map((job) => `${job.requestId}:${job.status}:${job.queuePosition ?? ''}:${job.cancelling ? 1 : 0}`).join('|');
}

/** Reads the queue again when the page's live jobs start or end (at most every 300 ms). */
export function useQueueFollowsLiveJobs(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    let last = lifecycleOf(queryClient);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.query.queryKey[0] !== LIVE_JOBS_KEY[0]) return;
      const now = lifecycleOf(queryClient);
      if (now === last) return;
      last = now;
      timer ??= setTimeout(() => {
        timer = undefined;
        void queryClient.invalidateQueries({ queryKey: QUEUE_KEY });
      }, 300);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [queryClient]);
}
