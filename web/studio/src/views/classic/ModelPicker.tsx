import type { CapabilitiesBody } from '../../api/contract';
import type { LaneChoice } from './laneChoice';

/** The alpha lanes' two-button picker (spec, Alpha pipeline 7): these models, labelled as the catalog labels them (Fast, Best). */
export const MODEL_BUTTONS = ['alpha-image', 'alpha-image-quality'] as const;

/** Fast or Best; pressing the chosen one again goes back to the lane's default model. */
function ModelButtons({
  capabilities,
  choice,
  value,
  onChange,
}: {
  capabilities: CapabilitiesBody;
  choice: LaneChoice;
  value: string;
  onChange(model: string): void;
}) {
  const labelOf = (id: string) => capabilities.models.find((model) => model.id === id)?.label ?? id;
  return (
    <div className="field field-wide model-buttons">
      <span className="field-label" id="model-buttons-label">
        Model
      </span>
      <div role="group" aria-labelledby="model-buttons-label" className="segmented">
        {MODEL_BUTTONS.map((id) => (
          <button
            key={id}
            type="button"
            data-model={id}
            aria-pressed={value === id}
            title={id}
            onClick={() => onChange(value === id ? '' : id)}
          >
            {labelOf(id)}
          </button>
        ))}
      </div>
      <p className="hint">
        {value && (MODEL_BUTTONS as readonly string[]).includes(value)
          ? value
          : `Neither pressed: the lane's default${choice.defaultModel ? ` (${choice.defaultModel})` : ''}`}
      </p>
    </div>
  );
}

/** The chosen lane's image models, with their labels; "default" leaves the choice to the lane's default. */
export function ModelPicker({
  capabilities,
  choice,
  value,
  onChange,
}: {
  capabilities: CapabilitiesBody;
  choice: LaneChoice;
  value: string;
  onChange(model: string): void;
}) {
  const buttons =
    MODEL_BUTTONS.every((id) => choice.models.includes(id)) && (value === '' || (MODEL_BUTTONS as readonly string[]).includes(value));
  if (buttons) return <ModelButtons capabilities={capabilities} choice={choice} value={value} onChange={onChange} />;
  const describe = (id: string): string => {
    const entry = capabilities.models.find((model) => model.id === id);
    const runsAs = choice.lane ? entry?.runsAs?.[choice.lane.id] : undefined;
    return [
      entry?.label ? `${entry.label} (${id})` : id,
      entry?.compatibility ? 'compatibility' : undefined,
      runsAs ? `runs as ${runsAs}` : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
  };
  const models = value && !choice.models.includes(value) ? [value, ...choice.models] : choice.models;
  return (
    <div className="field field-wide">
      <label htmlFor="model">Model</label>
      <select id="model" value={value} onChange={(event) => onChange(event.target.value)} disabled={models.length === 0}>
        <option value="">Default{choice.defaultModel ? ` (${choice.defaultModel})` : ''}</option>
        {models.map((id) => (
          <option key={id} value={id}>
            {describe(id)}
          </option>
        ))}
      </select>
    </div>
  );
}
