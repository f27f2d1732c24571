import { useQueryClient } from '@tanstack/react-query';
import { ErrorNotice } from '../../components/ErrorNotice';
import type { LiveJob } from '../../live/liveJobs';
import { removeJob, updateLiveJobs } from '../../live/liveJobs';
import { cancelJob } from './generate';
import { PhaseSteps } from './PhaseSteps';
import { SlotView } from './SlotView';

const STATUS_LABELS = { running: 'Running', succeeded: 'Done', failed: 'Failed', cancelled: 'Cancelled' } as const;

/** One job: what it is, its steps live, its images (a grid for a batch), cancel, and its error explained. */
export function JobCard({ job }: { job: LiveJob }) {
  const queryClient = useQueryClient();
  const running = job.status === 'running';
  const revised = job.result && 'revisedPrompt' in job.result ? job.result.revisedPrompt : undefined;
  const lane = job.error?.details?.lane;
  return (
    <article className="job" data-request-id={job.requestId} data-status={job.status} data-phase={job.phase ?? ''} data-origin={job.origin} aria-label={`Job: ${job.prompt ?? job.requestId}`}>
      <header className="job-header">
        <div className="job-title">
          <p className="job-prompt">{job.prompt ?? <span className="muted">Prompt not known yet</span>}</p>
          <p className="job-meta">
            <span className="status" data-status={job.status}>
              {STATUS_LABELS[job.status]}
            </span>
            {job.provider && <span>{job.provider}</span>}
            {job.model && <span>{job.model}</span>}
            {job.kind !== 'generate' && <span>{job.kind}</span>}
            {job.origin === 'elsewhere' && <span className="badge">from another client</span>}
          </p>
        </div>
        {running ? (
          <button type="button" className="danger" disabled={job.cancelling} onClick={() => void cancelJob(queryClient, job.requestId)}>
            {job.cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : (
          <button type="button" className="ghost" aria-label="Remove from this list" onClick={() => updateLiveJobs(queryClient, (jobs) => removeJob(jobs, job.requestId))}>
            ×
          </button>
        )}
      </header>
      <PhaseSteps job={job} />
      <div className={`slots slots-${Math.min(job.slots.length, 4)}`}>
        {job.slots.map((slot) => (
          <SlotView key={slot.slot} job={job} slot={slot} />
        ))}
      </div>
      {job.error && job.status !== 'cancelled' && <ErrorNotice error={job.error} settingsHash={typeof lane === 'string' ? `#lane-${lane}` : job.provider ? `#lane-${job.provider}` : undefined} />}
      {revised && <p className="revised-prompt">Revised prompt: {revised}</p>}
    </article>
  );
}
