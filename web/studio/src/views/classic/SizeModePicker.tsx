import type { LaneChoice } from './laneChoice';
import { labelOf, optionProblem, optionProperties } from './optionRules';

export type SizeMode = 'size' | 'native';

/**
 * For a lane with both (alpha): Size, or its native aspect ratio and resolution. One or the other is
 * offered and sent, never both. In native mode the two selects are shown here (from the lane's schema).
 */
export function SizeModePicker({
  choice,
  mode,
  options,
  onMode,
  onOption,
}: {
  choice: LaneChoice;
  mode: SizeMode;
  options: Record<string, unknown>;
  onMode(mode: SizeMode): void;
  onOption(name: string, value: unknown): void;
}) {
  const properties = optionProperties(choice);
  return (
    <fieldset className="size-mode" data-mode={mode}>
      <legend>Size</legend>
      <div className="segmented" role="radiogroup" aria-label="How to give the size">
        <label>
          <input type="radio" name="size-mode" value="size" checked={mode === 'size'} onChange={() => onMode('size')} /> Width x height
        </label>
        <label>
          <input type="radio" name="size-mode" value="native" checked={mode === 'native'} onChange={() => onMode('native')} /> Aspect ratio
          and resolution
        </label>
      </div>
      {mode === 'native' && (
        <div className="controls-grid">
          {(['aspectRatio', 'resolution'] as const).map((name) => {
            const schema = properties[name];
            const value = options[name];
            // A value the lane does not offer (a remixed `source`) is shown as it is, with why it blocks Generate.
            const values =
              value !== undefined && !(schema?.enum ?? []).includes(value) ? [...(schema?.enum ?? []), value] : (schema?.enum ?? []);
            const problem = schema ? optionProblem(schema, value) : undefined;
            return (
              <div className="field" key={name}>
                <label htmlFor={`option-${name}`}>{schema ? labelOf(name, schema) : name}</label>
                <select
                  id={`option-${name}`}
                  value={value === undefined ? '' : String(value)}
                  onChange={(event) => onOption(name, event.target.value || undefined)}
                >
                  <option value="">Default{schema?.default !== undefined ? ` (${String(schema.default)})` : ''}</option>
                  {values.map((entry) => (
                    <option key={String(entry)} value={String(entry)}>
                      {String(entry)}
                    </option>
                  ))}
                </select>
                {problem && (
                  <p className="field-problem" role="alert">
                    {labelOf(name, schema ?? {})} {problem}.
                  </p>
                )}
              </div>
            );
          })}
        </div>
      )}
    </fieldset>
  );
}
