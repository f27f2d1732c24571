import { API_LIMITS, STORYBOARD_CLIPS } from '../../api/contract';
import { newClip, type StoryboardClip } from './videoForm';

/** A storyboard's clips in order: add, remove, move up or down, each with its prompt and seconds. */
export function StoryboardEditor({
  clips,
  durations,
  onChange,
}: {
  clips: StoryboardClip[];
  durations: number[];
  onChange(clips: StoryboardClip[]): void;
}) {
  const update = (id: string, change: Partial<StoryboardClip>) =>
    onChange(clips.map((clip) => (clip.id === id ? { ...clip, ...change } : clip)));
  const move = (index: number, step: -1 | 1) => {
    const next = [...clips];
    const [clip] = next.splice(index, 1);
    if (clip) next.splice(index + step, 0, clip);
    onChange(next);
  };
  return (
    <fieldset className="storyboard">
      <legend>Storyboard: clips in order (each after the first starts from the last frame of the one before)</legend>
      <ol>
        {clips.map((clip, index) => (
          <li key={clip.id} className="storyboard-clip" data-clip={index + 1}>
            <label htmlFor={`${clip.id}-prompt`}>Clip {index + 1}</label>
            <textarea
              id={`${clip.id}-prompt`}
              rows={2}
              value={clip.prompt}
              maxLength={API_LIMITS.promptMaxChars}
              onChange={(event) => update(clip.id, { prompt: event.target.value })}
            />
            <div className="clip-controls">
              <label>
                Seconds{' '}
                <select value={clip.duration} onChange={(event) => update(clip.id, { duration: Number(event.target.value) })}>
                  {durations.map((seconds) => (
                    <option key={seconds} value={seconds}>
                      {seconds}
                    </option>
                  ))}
                </select>
              </label>
              <button
                type="button"
                className="ghost"
                disabled={index === 0}
                onClick={() => move(index, -1)}
                aria-label={`Move clip ${index + 1} up`}
              >
                ↑
              </button>
              <button
                type="button"
                className="ghost"
                disabled={index === clips.length - 1}
                onClick={() => move(index, 1)}
                aria-label={`Move clip ${index + 1} down`}
              >
                ↓
              </button>
              <button
                type="button"
                className="ghost danger"
                disabled={clips.length <= STORYBOARD_CLIPS.min}
                onClick={() => onChange(clips.filter((entry) => entry.id !== clip.id))}
                aria-label={`Remove clip ${index + 1}`}
              >
                Remove
              </button>
            </div>
          </li>
        ))}
      </ol>
      <button
        type="button"
        disabled={clips.length >= STORYBOARD_CLIPS.max}
        onClick={() => onChange([...clips, newClip(clips.at(-1)?.duration ?? durations[0])])}
      >
        Add a clip
      </button>
      <span className="hint">
        {' '}
        {STORYBOARD_CLIPS.min}–{STORYBOARD_CLIPS.max} clips.
      </span>
    </fieldset>
  );
}
