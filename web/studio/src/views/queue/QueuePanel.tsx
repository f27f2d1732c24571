import './queue.css';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ErrorPayload } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { laneLabel, useCapabilities } from '../../api/queries';
import { useLiveJobs, type LiveJob } from '../../live/liveJobs';
import { formatElapsed, useNow } from './elapsed';
import { cancelQueued, QUEUE_KEY, retryJob, useFinished, useInflight, useQueueFollowsLiveJobs } from './queueApi';
import type { FinishedJob, InflightJob } from './types';

const STATE_LABELS: Record<string, string> = {
  queued: 'Queued',
  running: 'Running',
  waiting: 'Waiting on upstream',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
};
const RETRYABLE = new Set(['failed', 'cancelled', 'interrupted']);

function Lane({ provider, model }: { provider: string; model?: string }) {
  const capabilities = useCapabilities();
  return (
    <span className="jobq-lane">
      {laneLabel(capabilities.data, provider)}
      {model ? ` · ${model}` : ''}
    </span>
  );
}

function InflightRow({ job, live, now, onError }: { job: InflightJob; live?: LiveJob; now: number; onError(error: ErrorPayload): void }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const since = Date.parse(job.startedAt ?? job.createdAt);
  const progress = live?.progress;
  const cancel = async () => {
    setBusy(true);
    try {
      await cancelQueued(job.requestId);
    } catch (error) {
      onError(toErrorPayload(error));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: QUEUE_KEY });
    }
  };
  return (
    <li className="jobq-item" data-request-id={job.requestId} data-state={job.state} data-phase={job.phase}>
      <div className="jobq-item-head">
        <span className="jobq-kind">{job.kind}</span>
        <Lane provider={job.provider} model={job.model} />
      </div>
      {live?.prompt && <p className="jobq-prompt">{live.prompt}</p>}
      <p className="jobq-facts">
        <span className="jobq-state">{STATE_LABELS[job.state] ?? job.state}</span>
        {job.state === 'queued' && job.position !== undefined && <span className="jobq-position">#{job.position} in line</span>}
        {job.state !== 'queued' && <span className="jobq-phase">{job.phase}</span>}
        <span className="jobq-elapsed" title={job.startedAt ? 'Running for' : 'Waiting for'}>
          {formatElapsed(now - since)}
        </span>
        {job.attempt > 1 && <span>attempt {job.attempt}</span>}
      </p>
      {progress !== undefined && <progress className="jobq-progress" max={1} value={progress} aria-label="Progress" />}
      <div className="jobq-actions">
        <button type="button" className="danger jobq-cancel" disabled={busy || job.cancelling} onClick={() => void cancel()}>
          {job.cancelling ? 'Cancelling…' : 'Cancel'}
        </button>
      </div>
    </li>
  );
}

function FinishedRow({ job, now, onError }: { job: FinishedJob; now: number; onError(error: ErrorPayload): void }) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const retry = async () => {
    setBusy(true);
    try {
      await retryJob(job.requestId);
    } catch (error) {
      onError(toErrorPayload(error));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: QUEUE_KEY });
    }
  };
  const took = job.startedAt ? Date.parse(job.finishedAt) - Date.parse(job.startedAt) : undefined;
  return (
    <li className="jobq-item" data-request-id={job.requestId} data-state={job.state}>
      <div className="jobq-item-head">
        <span className="jobq-kind">{job.kind}</span>
        <Lane provider={job.provider} model={job.model} />
      </div>
      <p className="jobq-facts">
        <span className="jobq-state">{STATE_LABELS[job.state] ?? job.state}</span>
        {job.error && <code className="jobq-error-code">{job.error.code}</code>}
        {took !== undefined && <span>took {formatElapsed(took)}</span>}
        <span>{formatElapsed(now - Date.parse(job.finishedAt))} ago</span>
      </p>
      {job.error && job.state !== 'cancelled' && <p className="jobq-error">{job.error.message}</p>}
      {RETRYABLE.has(job.state) && (
        <div className="jobq-actions">
          <button type="button" className="jobq-retry" disabled={busy} onClick={() => void retry()}>
            Retry
          </button>
        </div>
      )}
    </li>
  );
}

/**
 * The queue panel, in the top bar of every view: a button with the number of
 * unfinished jobs, opening a drawer with every job the engine holds (from any
 * client) and the ones that ended in the last hour.
 */
export function QueuePanel() {
  const [open, setOpen] = useState(false);
  const inflight = useInflight(open);
  const count = inflight.data?.length ?? 0;
  useQueueFollowsLiveJobs();
  const button = useRef<HTMLButtonElement>(null);

  return (
    <>
      <button
        ref={button}
        type="button"
        className="jobq-button"
        aria-expanded={open}
        aria-controls="jobq-drawer"
        data-count={count}
        onClick={() => setOpen((value) => !value)}
        title="Jobs queued, running and finished"
      >
        <span className="jobq-label">Queue</span> <span className="jobq-count">{count}</span>
      </button>
      {open && (
        <QueueDrawer
          onClose={() => {
            setOpen(false);
            button.current?.focus();
          }}
        />
      )}
    </>
  );
}

function QueueDrawer({ onClose }: { onClose(): void }) {
  const inflight = useInflight(true);
  const finished = useFinished(true);
  const liveJobs = useLiveJobs();
  const now = useNow(true);
  const [error, setError] = useState<ErrorPayload>();
  const live = new Map(liveJobs.map((job) => [job.requestId, job]));

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const jobs = inflight.data ?? [];
  const ended = finished.data ?? [];
  return (
    <aside id="jobq-drawer" className="jobq-drawer" aria-label="Queue">
      <div className="jobq-drawer-head">
        <h2>Queue</h2>
        <button type="button" className="ghost jobq-close" onClick={onClose} aria-label="Close the queue">
          ✕
        </button>
      </div>
      {error && (
        <p className="jobq-notice" role="alert" data-code={error.code}>
          {error.message} <code>{error.code}</code>
        </p>
      )}
      <section aria-labelledby="jobq-now">
        <h3 id="jobq-now">Now ({jobs.length})</h3>
        {inflight.isPending ? (
          <p className="muted">Reading the queue…</p>
        ) : jobs.length === 0 ? (
          <p className="muted jobq-empty">Nothing queued or running.</p>
        ) : (
          <ul className="jobq-list jobq-inflight">
            {jobs.map((job) => (
              <InflightRow key={job.requestId} job={job} live={live.get(job.requestId)} now={now} onError={setError} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="jobq-finished">
        <h3 id="jobq-finished">Finished in the last hour ({ended.length})</h3>
        {ended.length === 0 ? (
          <p className="muted">{finished.isPending ? 'Reading…' : 'None.'}</p>
        ) : (
          <ul className="jobq-list jobq-ended">
            {ended.map((job) => (
              <FinishedRow key={job.requestId} job={job} now={now} onError={setError} />
            ))}
          </ul>
        )}
      </section>
    </aside>
  );
}
