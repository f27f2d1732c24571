import { ErrorNotice } from '../../components/ErrorNotice';
import { VideoActions, VideoPlayer } from './VideoActions';
import { useVideoJob } from './useVideoJob';
import { useVideoJobs, type VideoJobEntry } from './videoJobs';

const STATUS_TEXT = {
  queued: 'Queued',
  planning: 'Planning',
  submitted: 'Submitted',
  rendering: 'Rendering',
  done: 'Done',
  failed: 'Failed',
} as const;

/** One video job: its progress bar while it runs, then the player and the video's actions (or why it failed). */
export function VideoJobCard({ job, onStarted }: { job: VideoJobEntry; onStarted(requestId: string): void }) {
  const view = useVideoJob(job.requestId);
  const forget = useVideoJobs((state) => state.forget);
  const percent = Math.round(view.fraction * 100);
  const running = view.status !== 'done' && view.status !== 'failed';
  return (
    <article className="video-job" data-request-id={job.requestId} data-status={view.status} aria-label={job.label}>
      <header className="video-job-head">
        <strong className="video-job-label">{job.label}</strong>
        <span className="state-badge" data-state={view.status}>
          {STATUS_TEXT[view.status]}
          {view.clips && view.clips > 1 && running ? ` · clip ${view.clip} of ${view.clips}` : ''}
          {view.status === 'queued' && view.position ? ` · #${view.position}` : ''}
        </span>
        {!running && (
          <button type="button" className="ghost" onClick={() => forget(job.requestId)} aria-label="Hide this job">
            ×
          </button>
        )}
      </header>
      {running && (
        <div className="video-progress">
          <progress max={100} value={percent} aria-label={`Progress of ${job.label}`} data-fraction={view.fraction.toFixed(3)} />
          <span className="hint">
            {percent}%{view.stalled ? ' · the upstream has not moved for a while' : ''}
          </span>
        </div>
      )}
      {view.error && <ErrorNotice error={view.error} />}
      {view.result && (
        <>
          <VideoPlayer asset={view.result.video} />
          <p className="hint">
            {view.result.mode} · {view.result.model}
            {view.result.requestedModel && view.result.requestedModel !== view.result.model ? ` (asked ${view.result.requestedModel})` : ''}
            {view.result.video.video
              ? ` · ${view.result.video.video.durationSeconds.toFixed(1)} s ${view.result.video.video.resolution} ${view.result.video.video.aspectRatio}`
              : ''}
          </p>
          <VideoActions asset={view.result.video} onStarted={onStarted} />
        </>
      )}
    </article>
  );
}
