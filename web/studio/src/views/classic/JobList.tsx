import { useLiveJobs } from '../../live/liveJobs';
import { useUi } from '../../store/ui';
import { JobCard } from './JobCard';

/** The page's jobs, newest first. Nothing is shown until running jobs were read from the server. */
export function JobList() {
  const jobs = useLiveJobs();
  const reconciled = useUi((state) => state.reconciled);
  return (
    <section className="jobs" aria-labelledby="jobs-title" aria-busy={!reconciled} data-reconciled={reconciled}>
      <h2 id="jobs-title">Results</h2>
      {reconciled && jobs.length === 0 && (
        <p className="hint empty">Nothing yet: write a prompt and press Generate. Jobs started from the CLI show up here too.</p>
      )}
      {reconciled && jobs.map((job) => <JobCard key={job.requestId} job={job} />)}
    </section>
  );
}
