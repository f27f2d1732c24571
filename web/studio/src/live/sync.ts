import type { QueryClient } from '@tanstack/react-query';
import type { AssetEvent, ErrorPayload, GenerationEvent, JobRecord } from '../api/contract';
import { ApiError, api } from '../api/http';
import type { InflightBody } from '../api/responses';
import { useUi } from '../store/ui';
import { connectEventStream } from './eventStream';
import { applyEvent, applyInflight, applyRecord, failJob, liveJob, markAssetBroken, updateLiveJobs, type LiveJob } from './liveJobs';

// Keeps the live jobs in step with the server: events as they come, the
// in-flight list on load and after any gap, job records for what ended unseen.

const REMEMBER_KEY = 'svc-studio-jobs';
const REMEMBER_MAX = 12;

/** This tab's own jobs, so a reload shows how they ended. */
export function rememberJob(requestId: string): void {
  try {
    const ids = [requestId, ...rememberedJobs().filter((id) => id !== requestId)].slice(0, REMEMBER_MAX);
    window.sessionStorage.setItem(REMEMBER_KEY, JSON.stringify(ids));
  } catch {
    // Storage disabled: nothing to remember.
  }
}

function rememberedJobs(): string[] {
  try {
    const ids: unknown = JSON.parse(window.sessionStorage.getItem(REMEMBER_KEY) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

const reading = new Set<string>();

/** Reads one job's record and merges it (its prompt, or how it ended). */
export async function readJob(queryClient: QueryClient, requestId: string, origin: LiveJob['origin'] = 'elsewhere'): Promise<void> {
  if (reading.has(requestId)) return;
  reading.add(requestId);
  try {
    const record = await api<JobRecord>(`/api/jobs/${encodeURIComponent(requestId)}`);
    updateLiveJobs(queryClient, (jobs) => applyRecord(jobs, record, origin));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'JOB_NOT_FOUND') {
      updateLiveJobs(queryClient, (jobs) =>
        failJob(jobs, requestId, {
          code: 'JOB_NOT_FOUND',
          message: 'The studio no longer knows this job; its images, if any, are in History.',
        }),
      );
    }
  } finally {
    reading.delete(requestId);
  }
}

/**
 * Reconciles with the server: running jobs from GET /api/inflight, and the end
 * of every job the page thought running that is no longer (or that this tab
 * started before a reload) from GET /api/jobs/:id.
 */
export async function reconcileJobs(queryClient: QueryClient): Promise<void> {
  const { jobs: inflight } = await api<InflightBody>('/api/inflight');
  let ended: string[] = [];
  updateLiveJobs(queryClient, (jobs) => {
    const merged = applyInflight(jobs, inflight);
    ended = merged.ended;
    return merged.jobs;
  });
  const remembered = rememberedJobs().filter((id) => !liveJob(queryClient, id));
  const undescribed = inflight.filter((job) => !liveJob(queryClient, job.requestId)?.described).map((job) => job.requestId);
  await Promise.all([
    ...[...new Set([...ended, ...undescribed])].map((id) => readJob(queryClient, id)),
    ...remembered.map((id) => readJob(queryClient, id, 'here')),
  ]);
}

/** New images: every history listing and the storage figures are out of date. */
function invalidateAssets(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: ['history'] });
  void queryClient.invalidateQueries({ queryKey: ['storage'] });
}

/** Images that did not decode (`asset_broken`), kept in case their job's result arrives after the notice. */
const brokenAssets = new Map<string, ErrorPayload>();

function withBroken(jobs: LiveJob[]): LiveJob[] {
  let next = jobs;
  for (const [filename, error] of brokenAssets) next = markAssetBroken(next, filename, error);
  return next;
}

function onAssetEvent(queryClient: QueryClient, event: AssetEvent): void {
  if (event.event !== 'asset_broken') return;
  brokenAssets.set(event.filename, event.error);
  updateLiveJobs(queryClient, withBroken);
  invalidateAssets(queryClient);
}

function onEvent(queryClient: QueryClient, event: GenerationEvent): void {
  updateLiveJobs(queryClient, (jobs) => withBroken(applyEvent(jobs, event)));
  // A job first heard of here (the CLI's, another tab's): read what it is.
  if (!liveJob(queryClient, event.requestId)?.described) void readJob(queryClient, event.requestId);
  if (event.event === 'done' || event.event === 'slot_done') invalidateAssets(queryClient);
}

async function resync(queryClient: QueryClient): Promise<void> {
  try {
    await reconcileJobs(queryClient);
  } catch {
    // The next open or gap tries again.
  } finally {
    useUi.getState().setReconciled();
  }
}

/**
 * Starts following the server: one EventSource for the whole app. The first
 * open reconciles running jobs (the page shows no job before that); an open
 * without a cursor (the stream gives one only with its first event), or a
 * replay gap, reconciles again, since events may have been missed.
 */
export function startLiveSync(queryClient: QueryClient): () => void {
  return connectEventStream({
    onEvent: (event) => onEvent(queryClient, event),
    onAssetEvent: (event) => onAssetEvent(queryClient, event),
    onGap: () => {
      void resync(queryClient);
      invalidateAssets(queryClient);
    },
    onOpen: ({ first, resumed }) => {
      if (first || !resumed) void resync(queryClient);
      // Back without a cursor (no event had arrived yet): jobs may have ended unseen, their images are in history.
      if (!first && !resumed) invalidateAssets(queryClient);
    },
  });
}
