import { useState, type FormEvent } from 'react';
import { API_LIMITS, VIDEO_ASPECT_RATIOS, VIDEO_REFERENCES_MAX, type CapabilitiesBody, type ErrorPayload } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { lanesOf } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { referencesFromFiles } from '../classic/references';
import { startVideoJob } from './videoApi';
import { StoryboardEditor } from './StoryboardEditor';
import { allowed, blocker, newClip, nextId, requestBody, withinRules, type VideoForm } from './videoForm';

const MODE_LABELS = { 'text-to-video': 'Text to video', 'image-to-video': 'Image to video', 'reference-to-video': 'Reference to video', 'video-to-video': 'Video to video', extension: 'Extension' } as const;

/** The video lanes of the catalog (those with a default video model) and the video models of the chosen one, its default first. */
export function videoChoices(capabilities: CapabilitiesBody, provider: string): { lanes: string[]; models: { id: string; description: string }[]; defaultModel: string } {
  const lanes = lanesOf(capabilities).filter((lane) => lane.built && lane.defaultVideoModel);
  const lane = lanes.find((entry) => entry.id === provider) ?? lanes[0];
  const defaultModel = lane?.defaultVideoModel ?? '';
  const models = capabilities.models
    .filter((model) => model.kind === 'video' && lane !== undefined && model.providers.includes(lane.id))
    .sort((a, b) => Number(b.id === defaultModel) - Number(a.id === defaultModel))
    .map((model) => ({ id: model.id, description: model.description }));
  return { lanes: lanes.map((entry) => entry.id), models, defaultModel };
}

/** The Video view's form: prompt, references (their count is the mode), the two-button model picker, the pickers the rules allow, the storyboard. */
export function VideoComposer({ capabilities, form, setForm, onStarted }: { capabilities: CapabilitiesBody; form: VideoForm; setForm(form: VideoForm): void; onStarted(requestId: string): void }) {
  const [error, setError] = useState<ErrorPayload>();
  const [refused, setRefused] = useState<string[]>([]);
  const [starting, setStarting] = useState(false);
  const choices = videoChoices(capabilities, form.provider);
  const { mode, durations, resolutions } = allowed(form);
  const blocked = blocker(form);
  const change = (next: Partial<VideoForm>) => setForm(withinRules({ ...form, ...next }));

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
        <textarea id="video-prompt" rows={3} value={form.prompt} maxLength={API_LIMITS.promptMaxChars} placeholder="A paper boat drifting down a rainy street" onChange={(event) => change({ prompt: event.target.value })} />
      </div>

      <fieldset className="video-references">
        <legend>
          References <span className="mode-badge" data-mode={mode}>{MODE_LABELS[mode]}</span>
        </legend>
        <p className="hint">None: text to video. One image: image to video. 2–{VIDEO_REFERENCES_MAX}: reference to video{form.storyboard ? ' (for the first clip)' : ''}.</p>
        <ul className="video-reference-list">
          {form.references.map((reference) => (
            <li key={reference.id}>
              <img src={reference.dataUrl} alt={reference.name} width={56} height={56} />
              <button type="button" className="ghost" aria-label={`Remove ${reference.name}`} onClick={() => change({ references: form.references.filter((entry) => entry.id !== reference.id) })}>
                ×
              </button>
            </li>
          ))}
        </ul>
        {form.references.length < VIDEO_REFERENCES_MAX && (
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
                  const room = VIDEO_REFERENCES_MAX - form.references.length;
                  const taken = added.slice(0, room).flatMap((reference) => (reference.source === 'file' ? [{ id: nextId('vref'), name: reference.name, dataUrl: reference.dataUrl }] : []));
                  change({ references: [...form.references, ...taken] });
                  setRefused([...reasons, ...(added.length > room ? [`${added.length - room} more: at most ${VIDEO_REFERENCES_MAX} references`] : [])]);
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

      <div className="field">
        <span id="video-model-label">Model</span>
        <div className="model-buttons" role="group" aria-labelledby="video-model-label">
          {choices.models.map((model) => (
            <button key={model.id} type="button" aria-pressed={form.model === model.id} data-model={model.id} title={model.description} onClick={() => change({ model: model.id })}>
              {model.id}
            </button>
          ))}
        </div>
        {mode === 'reference-to-video' && <p className="hint">Reference to video runs on the base model; the choice sets the longest clip ({durations.length} s).</p>}
      </div>

      <div className="controls-grid video-pickers">
        <div className="field">
          <label htmlFor="video-lane">Lane</label>
          <select id="video-lane" value={form.provider} onChange={(event) => change({ provider: event.target.value })}>
            <option value="">Default</option>
            {choices.lanes.map((lane) => (
              <option key={lane} value={lane}>
                {lane}
              </option>
            ))}
          </select>
        </div>
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
        <div className="field">
          <label htmlFor="video-aspect">Aspect ratio</label>
          <select id="video-aspect" value={form.aspectRatio} onChange={(event) => change({ aspectRatio: event.target.value })}>
            <option value="">{mode === 'text-to-video' ? 'Default (16:9)' : "The image's own"}</option>
            {VIDEO_ASPECT_RATIOS.map((ratio) => (
              <option key={ratio} value={ratio}>
                {ratio}
              </option>
            ))}
          </select>
        </div>
      </div>

      <label className="storyboard-toggle">
        <input type="checkbox" checked={form.storyboard !== undefined} onChange={(event) => change({ storyboard: event.target.checked ? [newClip(form.duration), newClip(form.duration)] : undefined })} /> Storyboard (several clips joined)
      </label>
      {form.storyboard && <StoryboardEditor clips={form.storyboard} durations={durations} onChange={(storyboard) => change({ storyboard })} />}

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
