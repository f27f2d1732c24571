import type { CapabilitiesBody } from '../../api/contract';
import type { LaneChoice } from './laneChoice';

/** The chosen lane's image models, with their labels; "default" leaves the choice to the lane's default. */
export function ModelPicker({ capabilities, choice, value, onChange }: { capabilities: CapabilitiesBody; choice: LaneChoice; value: string; onChange(model: string): void }) {
  const describe = (id: string): string => {
    const entry = capabilities.models.find((model) => model.id === id);
    const runsAs = choice.lane ? entry?.runsAs?.[choice.lane.id] : undefined;
    return [entry?.label ? `${entry.label} (${id})` : id, entry?.compatibility ? 'compatibility' : undefined, runsAs ? `runs as ${runsAs}` : undefined].filter(Boolean).join(' · ');
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
