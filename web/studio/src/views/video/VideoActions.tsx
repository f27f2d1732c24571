import { useState, type FormEvent } from 'react';
import { API_LIMITS, type AssetRecord, type ErrorPayload, type VideoAnalysis } from '../../api/contract';
import { useCapabilities } from '../../api/queries';
import { toErrorPayload } from '../../api/http';
import { withToken } from '../../api/token';
import { ErrorNotice } from '../../components/ErrorNotice';
import { analyzeVideo, frameUrl, startVideoJob } from './videoApi';
import { videoLaneChoices } from './videoForm';

type Action = 'edit' | 'extend' | 'frame' | 'analyze';

/** A history MP4 in a player (its poster shown until it plays). */
export function VideoPlayer({ asset }: { asset: AssetRecord }) {
  return (
    <video
      className="video-player"
      controls
      preload="metadata"
      playsInline
      src={withToken(asset.url)}
      poster={withToken(asset.thumbnailUrl)}
      width={asset.width}
      height={asset.height}
      data-filename={asset.filename}
    >
      <a href={withToken(asset.url)}>Download the video</a>
    </video>
  );
}

/** Edit, extend, a frame and an analysis of one video of history; a started job is followed in the Video view's job list. */
export function VideoActions({ asset, onStarted }: { asset: AssetRecord; onStarted?(requestId: string): void }) {
  const [open, setOpen] = useState<Action>();
  const [prompt, setPrompt] = useState('');
  // Edits and extensions run on the studio's default video lane: its default model's limits.
  const capabilities = useCapabilities();
  const defaults = capabilities.data ? videoLaneChoices(capabilities.data)[0] : undefined;
  const limits = (defaults?.models.find((model) => model.id === defaults.defaultModel) ?? defaults?.models[0])?.limits;
  const extendBy = limits?.extend?.durations ?? limits?.durations ?? { min: 1, max: 15 };
  const [min, max] = 'values' in extendBy ? [Math.min(...extendBy.values), Math.max(...extendBy.values)] : [extendBy.min, extendBy.max];
  const editMaxSeconds = limits?.edit?.maxSourceSeconds;
  const [seconds, setSeconds] = useState(limits?.defaultDuration ?? 6);
  const [at, setAt] = useState('first');
  const [frame, setFrame] = useState<string>();
  const [analysis, setAnalysis] = useState<VideoAnalysis>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorPayload>();
  const tooLongToEdit = editMaxSeconds !== undefined && (asset.video?.durationSeconds ?? 0) > editMaxSeconds;

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (caught) {
      setError(toErrorPayload(caught));
    } finally {
      setBusy(false);
    }
  };

  const submitJob = (event: FormEvent) => {
    event.preventDefault();
    const operation = open === 'extend' ? 'extend' : 'edit';
    void run(async () => {
      const body = { prompt: prompt.trim(), video: asset.filename, ...(operation === 'extend' ? { duration: seconds } : {}) };
      const requestId = await startVideoJob(
        `/api/video/${operation}`,
        body,
        `${operation === 'edit' ? 'Edit' : 'Extend'}: ${prompt.trim()}`,
      );
      setPrompt('');
      setOpen(undefined);
      onStarted?.(requestId);
    });
  };

  const toggle = (action: Action) => {
    setOpen((current) => (current === action ? undefined : action));
    setError(undefined);
    if (action === 'analyze' && open !== 'analyze' && !analysis) void run(async () => setAnalysis(await analyzeVideo(asset.filename)));
  };

  return (
    <div className="video-actions" data-filename={asset.filename}>
      <div className="video-action-buttons" role="group" aria-label="Video actions">
        {(['edit', 'extend', 'frame', 'analyze'] as const).map((action) => (
          <button key={action} type="button" aria-expanded={open === action} onClick={() => toggle(action)} data-action={action}>
            {action === 'edit' ? 'Edit' : action === 'extend' ? 'Extend' : action === 'frame' ? 'Frame' : 'Analyze'}
          </button>
        ))}
      </div>
      {(open === 'edit' || open === 'extend') && (
        <form className="video-action-form" onSubmit={submitJob}>
          {open === 'edit' && tooLongToEdit && (
            <p className="hint">Edits take videos of at most {editMaxSeconds} s; this one is longer, so the studio will refuse it.</p>
          )}
          <label htmlFor={`video-${open}-prompt`}>{open === 'edit' ? 'What to change' : 'What happens next'}</label>
          <textarea
            id={`video-${open}-prompt`}
            rows={2}
            value={prompt}
            maxLength={API_LIMITS.promptMaxChars}
            onChange={(event) => setPrompt(event.target.value)}
          />
          {open === 'extend' && (
            <label>
              Seconds to add{' '}
              <input
                type="number"
                min={min}
                max={max}
                value={seconds}
                onChange={(event) => setSeconds(Math.round(Number(event.target.value)) || (limits?.defaultDuration ?? min))}
              />
            </label>
          )}
          <button type="submit" className="primary" disabled={busy || prompt.trim() === ''}>
            {open === 'edit' ? 'Start the edit' : 'Start the extension'}
          </button>
        </form>
      )}
      {open === 'frame' && (
        <div className="video-frame">
          <label>
            Frame{' '}
            <select value={at} onChange={(event) => setAt(event.target.value)}>
              <option value="first">First</option>
              <option value="last">Last</option>
              {Array.from({ length: Math.floor(asset.video?.durationSeconds ?? 0) }, (_, index) => index + 1).map((second) => (
                <option key={second} value={String(second)}>
                  At {second} s
                </option>
              ))}
            </select>
          </label>{' '}
          <button type="button" onClick={() => setFrame(frameUrl(asset.filename, at))}>
            Show
          </button>
          {frame && (
            <figure>
              <img
                src={frame}
                alt={`Frame ${at} of the video`}
                className="video-frame-image"
                onError={() => setError({ code: 'VIDEO_FRAME_OUT_OF_RANGE', message: 'The studio could not give this frame.' })}
              />
              <figcaption>
                <a className="button" href={frame} download={`${asset.filename.replace(/\.mp4$/, '')}-${at}.png`}>
                  Download the frame
                </a>
              </figcaption>
            </figure>
          )}
        </div>
      )}
      {open === 'analyze' && (
        <div className="video-analysis" aria-live="polite">
          {busy && !analysis && <p className="hint">Asking the planner model about the first and last frames…</p>}
          {analysis && (
            <dl>
              <dt>First frame ({analysis.first.atSeconds} s)</dt>
              <dd>{analysis.first.description}</dd>
              <dt>Last frame ({analysis.last.atSeconds} s)</dt>
              <dd>{analysis.last.description}</dd>
              <dt>By</dt>
              <dd>
                {analysis.provider} · {analysis.plannerModel}
              </dd>
            </dl>
          )}
        </div>
      )}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
