import { JOB_PHASES, type JobPhase } from '../../api/contract';
import type { LiveJob } from '../../live/liveJobs';

const LABELS: Readonly<Record<JobPhase | 'done', string>> = {
  queued: 'Queued',
  searching: 'Searching',
  planning: 'Planning',
  rendering: 'Rendering',
  saving: 'Saving',
  done: 'Done',
};

/** Steps only some lanes take (the alpha lanes' web search), shown once the job takes them. */
const OPTIONAL: readonly JobPhase[] = ['searching'];

/** The job's steps, the current one marked, as they happen. */
export function PhaseSteps({ job }: { job: LiveJob }) {
  const current = job.status === 'running' ? job.phase : undefined;
  const phases = JOB_PHASES.filter((phase) => !OPTIONAL.includes(phase) || job.phases.includes(phase));
  const reached = job.phase ? phases.indexOf(job.phase) : -1;
  const steps: Array<JobPhase | 'done'> = [...phases, 'done'];
  return (
    <ol className="phases" aria-label="Progress">
      {steps.map((step, index) => {
        let state: 'done' | 'current' | 'pending' | 'failed' = 'pending';
        if (step === 'done') state = job.status === 'succeeded' ? 'done' : job.status === 'running' ? 'pending' : 'failed';
        else if (step === current) state = 'current';
        else if (index < reached || job.status === 'succeeded' || (job.status !== 'running' && index <= reached)) state = 'done';
        let label =
          step === 'done' && (job.status === 'failed' || job.status === 'cancelled')
            ? job.status === 'cancelled'
              ? 'Cancelled'
              : 'Failed'
            : LABELS[step];
        // Waiting for a slot behind other jobs: which place in line.
        if (step === 'queued' && state === 'current' && job.queuePosition) label = `Queued #${job.queuePosition}`;
        return (
          <li key={step} data-state={state} aria-current={state === 'current' ? 'step' : undefined}>
            {label}
          </li>
        );
      })}
    </ol>
  );
}
