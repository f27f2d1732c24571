import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatElapsed, formatUntil, localizeTimes } from '../../components/format';
import { queryKeys, statusOf, useProviders } from '../../api/queries';
import type { LiveJob } from '../../live/liveJobs';
import { removeJob, updateLiveJobs } from '../../live/liveJobs';
import { canRetry, cancelJob, retryJob } from './generate';
import { PhaseSteps } from './PhaseSteps';
import { SlotView } from './SlotView';
import './jobs.css';

const STATUS_LABELS = { running: 'Running', succeeded: 'Done', failed: 'Failed', cancelled: 'Cancelled' } as const;

/** A phone-width page: a job started here is scrolled into view, the composer being above it. */
const NARROW = '(max-width: 860px)';

/** Seconds since the job started, ticking while it runs. */
function Elapsed({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <span className="elapsed" data-elapsed>
      {formatElapsed(now - new Date(since).getTime())}
    </span>
  );
}

/** How auto chose the lane: the lanes it passed over and why (result.routing), said on the card. */
function RoutingNote({ job }: { job: LiveJob }) {
  const routing = job.result && 'routing' in job.result ? job.result.routing : undefined;
  const skipped = Object.entries(routing?.skipped ?? {});
  if (!routing || skipped.length === 0) return null;
  return (
    <p className="routing-note" data-routing>
      Auto moved to {job.provider ?? 'another lane'}: {skipped.map(([lane, why]) => `${lane} (${localizeTimes(why)})`).join(', ')} passed
      over.
    </p>
  );
}

/** A failed job's lane resting after a quota or rate error: until when, as the studio reports it. */
function CooldownNote({ lane }: { lane: string | undefined }) {
  const queryClient = useQueryClient();
  const providers = useProviders();
  // The failure may have started a cooldown just now: the lanes' state is read again.
  useEffect(() => void queryClient.invalidateQueries({ queryKey: queryKeys.providers }), [queryClient]);
  const status = lane ? statusOf(providers.data, lane) : undefined;
  if (!lane || status?.state !== 'cooling_down' || !status.until) return null;
  return (
    <p className="cooldown-note" data-until={status.until}>
      {lane} is cooling down until {formatUntil(status.until)}; auto uses the next ready lane meanwhile.
    </p>
  );
}

/** One job: what it is, its steps live, its images (a grid for a batch), cancel or retry, and its error explained first. */
export function JobCard({ job }: { job: LiveJob }) {
  const queryClient = useQueryClient();
  const card = useRef<HTMLElement>(null);
  const running = job.status === 'running';
  const ended = job.status === 'failed' || job.status === 'cancelled';
  const revised = job.result && 'revisedPrompt' in job.result ? job.result.revisedPrompt : undefined;
  const lane = job.error?.details?.lane;
  // An ended job shows only what it made or why a slot failed: no empty frame pushes its error out of view.
  const slots = ended ? job.slots.filter((slot) => slot.image || slot.partial || slot.error) : job.slots;

  useEffect(() => {
    if (job.origin === 'here' && running && window.matchMedia(NARROW).matches)
      card.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    // Only when the card appears.
  }, []);

  return (
    <article
      ref={card}
      className="job"
      data-request-id={job.requestId}
      data-status={job.status}
      data-phase={job.phase ?? ''}
      data-origin={job.origin}
      aria-label={`Job: ${job.prompt ?? job.requestId}`}
    >
      <header className="job-header">
        <div className="job-title">
          <p className="job-prompt">{job.prompt ?? <span className="muted">Prompt not known yet</span>}</p>
          <p className="job-meta">
            <span className="status" data-status={job.status}>
              {STATUS_LABELS[job.status]}
            </span>
            {running && <Elapsed since={job.startedAt} />}
            {job.provider && <span>{job.provider}</span>}
            {job.model && <span>{job.model}</span>}
            {job.kind !== 'generate' && <span>{job.kind}</span>}
            {job.origin === 'elsewhere' && <span className="badge">from another client</span>}
          </p>
        </div>
        <div className="job-buttons">
          {job.status === 'failed' && canRetry(job.requestId) && (
            <button type="button" className="retry" onClick={() => void retryJob(queryClient, job.requestId)}>
              Retry
            </button>
          )}
          {running ? (
            <button type="button" className="danger" disabled={job.cancelling} onClick={() => void cancelJob(queryClient, job.requestId)}>
              {job.cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          ) : (
            <button
              type="button"
              className="ghost"
              aria-label="Remove from this list"
              onClick={() => updateLiveJobs(queryClient, (jobs) => removeJob(jobs, job.requestId))}
            >
              ×
            </button>
          )}
        </div>
      </header>
      {job.error && job.status !== 'cancelled' && (
        <ErrorNotice
          error={job.error}
          settingsHash={typeof lane === 'string' ? `#lane-${lane}` : job.provider ? `#lane-${job.provider}` : undefined}
        />
      )}
      {job.status === 'failed' && <CooldownNote lane={typeof lane === 'string' ? lane : job.provider} />}
      <RoutingNote job={job} />
      <PhaseSteps job={job} />
      {slots.length > 0 && (
        <div className={`slots slots-${Math.min(slots.length, 4)}`}>
          {slots.map((slot) => (
            <SlotView key={slot.slot} job={job} slot={slot} />
          ))}
        </div>
      )}
      {revised && <p className="revised-prompt">Revised prompt: {revised}</p>}
    </article>
  );
}
