import { useState, type FormEvent } from 'react';
import { API_LIMITS, type CapabilitiesBody, type ErrorPayload } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { ErrorNotice } from '../../components/ErrorNotice';
import { referencesFromFiles } from '../classic/references';
import { startVideoJob } from './videoApi';
import { StoryboardEditor } from './StoryboardEditor';
import {
  allowed,
  blocker,
  laneOfForm,
  limitsOfForm,
  newClip,
  nextId,
  requestBody,
  videoLaneChoices,
  withinRules,
  type VideoForm,
} from './videoForm';

const MODE_LABELS = {
  'text-to-video': 'Text to video',
  'image-to-video': 'Image to video',
  'reference-to-video': 'Reference to video',
  'video-to-video': 'Video to video',
  extension: 'Extension',
} as const;

/** The Video view's form: prompt, references (their count is the mode), every video lane's models grouped by lane, the pickers the chosen model allows, the storyboard. */
export function VideoComposer({
  capabilities,
  form,
  setForm,
  onStarted,
}: {
  capabilities: CapabilitiesBody;
  form: VideoForm;
  setForm(form: VideoForm): void;
  onStarted(requestId: string): void;
}) {
  const [error, setError] = useState<ErrorPayload>();
  const [refused, setRefused] = useState<string[]>([]);
  const [starting, setStarting] = useState(false);
  const choices = videoLaneChoices(capabilities);
  const current = laneOfForm(form, choices);
  const limits = limitsOfForm(form, choices);
  const { mode, durations, resolutions, aspectRatios, maxReferences } = limits
    ? allowed(form, limits)
    : { mode: 'text-to-video' as const, durations: [], resolutions: [], aspectRatios: [], maxReferences: 0 };
  const blocked = blocker(form, limits);
  const change = (next: Partial<VideoForm>) => {
    const changed = { ...form, ...next };
    setForm(withinRules(changed, limitsOfForm(changed, choices)));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (blocked || starting) return;
    setStarting(true);
    setError(undefined);
    try {
      const label = form.storyboard ? `Storyboard of ${form.storyboard.length} clips` : form.prompt.trim();
      onStarted(await startVideoJob('/api/video/generate', requestBody(form), label));
    } catch (caught) {
      setError(toErrorPayload(caught));
    } finally {
      setStarting(false);
    }
  };

  return (
    <form className="video-composer" onSubmit={(event) => void submit(event)} aria-label="Video">
      <div className="field field-wide">
        <label htmlFor="video-prompt">{form.storyboard ? 'Shared direction (optional, before every clip)' : 'Prompt'}</label>
        <textarea
          id="video-prompt"
          rows={3}
          value={form.prompt}
          maxLength={API_LIMITS.promptMaxChars}
          placeholder="A paper boat drifting down a rainy street"
          onChange={(event) => change({ prompt: event.target.value })}
        />
      </div>

      <fieldset className="video-references">
        <legend>
          References{' '}
          <span className="mode-badge" data-mode={mode}>
            {MODE_LABELS[mode]}
          </span>
        </legend>
        <p className="hint">
          None: text to video. One image: image to video.{maxReferences > 1 ? ` 2–${maxReferences}: reference to video` : ''}
          {form.storyboard ? ' (for the first clip)' : ''}.
        </p>
        <ul className="video-reference-list">
          {form.references.map((reference) => (
            <li key={reference.id}>
              <img src={reference.dataUrl} alt={reference.name} width={56} height={56} />
              <button
                type="button"
                className="ghost"
                aria-label={`Remove ${reference.name}`}
                onClick={() => change({ references: form.references.filter((entry) => entry.id !== reference.id) })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
        {form.references.length < maxReferences && (
          <label className="button file-button">
            Add images
            <input
              type="file"
              accept="image/png,image/jpeg,image/webp"
              multiple
              className="visually-hidden"
              onChange={(event) => {
                const files = Array.from(event.target.files ?? []);
                event.target.value = '';
                void referencesFromFiles(files).then(({ added, refused: reasons }) => {
                  const room = maxReferences - form.references.length;
                  const taken = added
                    .slice(0, room)
                    .flatMap((reference) =>
                      reference.source === 'file' ? [{ id: nextId('vref'), name: reference.name, dataUrl: reference.dataUrl }] : [],
                    );
                  change({ references: [...form.references, ...taken] });
                  setRefused([
                    ...reasons,
                    ...(added.length > room ? [`${added.length - room} more: at most ${maxReferences} references on ${form.model}`] : []),
                  ]);
                });
              }}
            />
          </label>
        )}
        {refused.length > 0 && (
          <ul className="field-problem" role="alert">
            {refused.map((reason) => (
              <li key={reason}>Not added: {reason}</li>
            ))}
          </ul>
        )}
      </fieldset>

      <div className="field field-wide">
        <span id="video-model-label">Model</span>
        {choices.map((choice) => (
          <div key={choice.lane} className="model-group" data-lane={choice.lane}>
            <span className="model-group-label">{choice.label}</span>
            <div className="model-buttons" role="group" aria-labelledby="video-model-label" data-lane={choice.lane}>
              {choice.models.map((model) => (
                <button
                  key={model.id}
                  type="button"
                  aria-pressed={current?.lane === choice.lane && form.model === model.id}
                  data-lane={choice.lane}
                  data-model={model.id}
                  title={model.description}
                  onClick={() => change({ provider: current?.lane === choice.lane ? form.provider : choice.lane, model: model.id })}
                >
                  {model.label ?? model.id}
                </button>
              ))}
            </div>
          </div>
        ))}
        {mode === 'reference-to-video' && (
          <p className="hint">
            Reference to video on {form.model}: up to {durations.at(-1)} s.
          </p>
        )}
      </div>

      <div className="controls-grid video-pickers">
        {!form.storyboard && (
          <div className="field">
            <label htmlFor="video-duration">Seconds</label>
            <select id="video-duration" value={form.duration} onChange={(event) => change({ duration: Number(event.target.value) })}>
              {durations.map((seconds) => (
                <option key={seconds} value={seconds}>
                  {seconds}
                </option>
              ))}
            </select>
          </div>
        )}
        {resolutions.length > 0 && (
          <div className="field">
            <label htmlFor="video-resolution">Resolution</label>
            <select id="video-resolution" value={form.resolution} onChange={(event) => change({ resolution: event.target.value })}>
              {resolutions.map((resolution) => (
                <option key={resolution} value={resolution}>
                  {resolution}
                </option>
              ))}
            </select>
          </div>
        )}
        {aspectRatios.length > 0 && (
          <div className="field">
            <label htmlFor="video-aspect">Aspect ratio</label>
            <select id="video-aspect" value={form.aspectRatio} onChange={(event) => change({ aspectRatio: event.target.value })}>
              <option value="">{mode === 'text-to-video' ? 'Default' : "The image's own"}</option>
              {aspectRatios.map((ratio) => (
                <option key={ratio} value={ratio}>
                  {ratio}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>

      <label className="storyboard-toggle">
        <input
          type="checkbox"
          checked={form.storyboard !== undefined}
          onChange={(event) => change({ storyboard: event.target.checked ? [newClip(form.duration), newClip(form.duration)] : undefined })}
        />{' '}
        Storyboard (several clips joined)
      </label>
      {form.storyboard && (
        <StoryboardEditor clips={form.storyboard} durations={durations} onChange={(storyboard) => change({ storyboard })} />
      )}

      <div className="generate-bar">
        <button type="submit" className="primary" disabled={blocked !== undefined || starting}>
          {starting ? 'Starting…' : 'Generate video'}
        </button>
        {blocked && <span className="hint">{blocked}</span>}
      </div>
      {error && <ErrorNotice error={error} />}
    </form>
  );
}
