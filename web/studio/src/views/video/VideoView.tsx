import { useState } from 'react';
import type { AssetRecord } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { useCapabilities, useHistoryItems } from '../../api/queries';
import { withToken } from '../../api/token';
import { ErrorNotice } from '../../components/ErrorNotice';
import { PromptBuilderPanel } from '../prompt-builder/PromptBuilderPanel';
import { VideoActions, VideoPlayer } from './VideoActions';
import { VideoComposer } from './VideoComposer';
import { VideoJobCard } from './VideoJobCard';
import { emptyForm, videoLaneChoices, type VideoForm } from './videoForm';
import { useVideoJobs } from './videoJobs';
import './video.css';

/** The videos of history, newest first: pick one to play it and act on it. */
function RecentVideos({ onStarted }: { onStarted(requestId: string): void }) {
  const videos = useHistoryItems({ kind: 'video' });
  const [selected, setSelected] = useState<AssetRecord>();
  const items = videos.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section className="recent-videos" aria-labelledby="recent-videos-title">
      <h2 id="recent-videos-title">Videos in history</h2>
      {videos.error && <ErrorNotice error={toErrorPayload(videos.error)} />}
      {items.length === 0 && videos.isSuccess && <p className="hint">No video yet.</p>}
      <ul className="video-strip">
        {items.map((asset) => (
          <li key={asset.filename}>
            <button
              type="button"
              aria-pressed={selected?.filename === asset.filename}
              data-filename={asset.filename}
              onClick={() => setSelected(asset)}
              title={asset.prompt}
            >
              <img src={withToken(asset.thumbnailUrl)} alt={asset.prompt} width={120} height={68} loading="lazy" />
            </button>
          </li>
        ))}
      </ul>
      {selected && (
        <div className="video-selected">
          <VideoPlayer asset={selected} />
          <p className="hint">{selected.prompt}</p>
          <VideoActions asset={selected} onStarted={onStarted} />
        </div>
      )}
    </section>
  );
}

/** Video: the form and the prompt builder on the left; the jobs (progress, then the player) and history's videos on the right. */
export function VideoView() {
  const capabilities = useCapabilities();
  const jobs = useVideoJobs((state) => state.jobs);
  const [form, setForm] = useState<VideoForm>();
  const current = form ?? (capabilities.data ? emptyForm(videoLaneChoices(capabilities.data)[0]) : undefined);
  // The job list is the store's; a new job is at its top already.
  const onStarted = () => window.scrollTo({ top: 0 });
  return (
    <div className="video-view">
      <h1 className="visually-hidden">Video</h1>
      <div className="video-side">
        {capabilities.error && <ErrorNotice error={toErrorPayload(capabilities.error)} />}
        {capabilities.data && current ? (
          <VideoComposer capabilities={capabilities.data} form={current} setForm={setForm} onStarted={onStarted} />
        ) : (
          !capabilities.error && <p className="hint">Loading the catalog…</p>
        )}
        {current && (
          <details className="pb-fold">
            <summary>Prompt builder</summary>
            <PromptBuilderPanel currentPrompt={current.prompt} onApply={(prompt) => setForm({ ...current, prompt })} />
          </details>
        )}
      </div>
      <div className="video-results">
        <section className="video-jobs" aria-label="Video jobs" data-count={jobs.length}>
          {jobs.map((job) => (
            <VideoJobCard key={job.requestId} job={job} onStarted={onStarted} />
          ))}
        </section>
        <RecentVideos onStarted={onStarted} />
      </div>
    </div>
  );
}
