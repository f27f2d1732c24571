import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ErrorPayload, JobRecord, VideoResult } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import { useStreamEvents } from '../../live/streamEvents';

/** A video job as the page shows it: where it is, how far (0–1 over all its clips), and how it ended. */
export interface VideoJobView {
  status: 'queued' | 'planning' | 'submitted' | 'rendering' | 'done' | 'failed';
  /** Overall: finished clips plus the running clip's fraction, over the clip count. */
  fraction: number;
  clip?: number;
  clips?: number;
  position?: number;
  stalled?: boolean;
  result?: VideoResult;
  error?: ErrorPayload;
}

/** How long a job unknown to the studio is given before it is shown as unknown. */
const NOT_FOUND_RETRY_MS = 3000;

const overall = (clip: number, clips: number, fraction: number): number => Math.min(1, (clip - 1 + fraction) / Math.max(1, clips));

/** A view of a job record read from the server (after a reload, or for a job whose events were missed). */
function fromRecord(record: JobRecord): VideoJobView {
  if (record.state === 'succeeded') return { status: 'done', fraction: 1, result: record.result as VideoResult };
  if (record.state === 'failed' || record.state === 'cancelled' || record.state === 'interrupted')
    return { status: 'failed', fraction: 0, error: record.error ?? { code: 'JOB_FAILED', message: `The job ended ${record.state}.` } };
  if (record.state === 'queued') return { status: 'queued', fraction: 0, position: record.position ?? undefined };
  return { status: 'rendering', fraction: 0 };
}

/**
 * Follows one video job: read once from GET /api/jobs/:id, then moved by its
 * events (`phase` queued, `planning`, `submitted`, `progress`, `done`, `error`).
 */
export function useVideoJob(requestId: string): VideoJobView {
  const queryClient = useQueryClient();
  const [view, setView] = useState<VideoJobView>({ status: 'queued', fraction: 0 });

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = (attempt: number) =>
      api<JobRecord>(`/api/jobs/${encodeURIComponent(requestId)}`)
        .then((record) => {
          // Events that arrived meanwhile are newer than the record, unless it already ended.
          if (live)
            setView((current) =>
              current.status === 'queued' || record.state === 'succeeded' || record.state === 'failed' || record.state === 'cancelled'
                ? fromRecord(record)
                : current,
            );
        })
        .catch((error: unknown) => {
          const payload = toErrorPayload(error);
          if (!live) return;
          // A job whose POST is still on its way answers 404 for a moment: ask once more; a job
          // still unknown then (swept after its retention) is shown as such, unless its events came.
          if (payload.code === 'JOB_NOT_FOUND' && attempt === 0) timer = setTimeout(() => void read(1), NOT_FOUND_RETRY_MS);
          else setView((current) => (current.status === 'queued' ? { status: 'failed', fraction: 0, error: payload } : current));
        });
    void read(0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [requestId]);

  useStreamEvents((event) => {
    if (event.topic !== 'generation' || event.requestId !== requestId) return;
    const clip = typeof event.clip === 'number' ? event.clip : 1;
    const clips = typeof event.clips === 'number' ? event.clips : 1;
    switch (event.event) {
      case 'phase':
        if (event.phase === 'queued')
          setView((current) => (current.status === 'queued' ? { ...current, position: event.position as number | undefined } : current));
        break;
      case 'planning':
        setView({ status: 'planning', fraction: overall(clip, clips, 0), clip, clips });
        break;
      case 'submitted':
        setView((current) => ({ ...current, status: 'submitted', fraction: overall(clip, clips, 0), clip, clips }));
        break;
      case 'progress':
        setView({
          status: 'rendering',
          fraction: overall(clip, clips, Number(event.fraction) || 0),
          clip,
          clips,
          stalled: event.stalled === true,
        });
        break;
      case 'done':
        setView({ status: 'done', fraction: 1, result: event.result as VideoResult });
        void queryClient.invalidateQueries({ queryKey: ['history'] });
        break;
      case 'error':
        setView((current) => ({ ...current, status: 'failed', error: event.error as ErrorPayload }));
        break;
    }
  });
  return view;
}
