import type { CapabilitiesBody } from '../../api/contract';
import { useUi } from '../../store/ui';
import { estimatedPrice, type LaneChoice } from './laneChoice';
import { labelOf, optionHint, optionProblem, optionProperties, type PropertySchema } from './optionRules';

function OptionField({
  name,
  schema,
  value,
  onChange,
}: {
  name: string;
  schema: PropertySchema;
  value: unknown;
  onChange(value: unknown): void;
}) {
  const id = `option-${name}`;
  const label = labelOf(name, schema);
  const hint = optionHint(schema);
  const problem = optionProblem(schema, value);
  const described = [hint ? `${id}-hint` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ') || undefined;
  const notes = (
    <>
      {hint && (
        <p id={`${id}-hint`} className="hint option-hint">
          {hint}
        </p>
      )}
      {problem && (
        <p id={`${id}-problem`} className="field-problem" role="alert">
          {label} {problem}.
        </p>
      )}
    </>
  );
  if (schema.enum) {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select
          id={id}
          value={value === undefined ? '' : String(value)}
          aria-describedby={described}
          onChange={(event) =>
            onChange(event.target.value === '' ? undefined : schema.enum?.find((entry) => String(entry) === event.target.value))
          }
        >
          <option value="">Default{schema.default !== undefined ? ` (${String(schema.default)})` : ''}</option>
          {[...schema.enum, ...(value !== undefined && !schema.enum.includes(value) ? [value] : [])].map((entry) => (
            <option key={String(entry)} value={String(entry)}>
              {String(entry)}
            </option>
          ))}
        </select>
        {problem && notes}
      </div>
    );
  }
  if (schema.type === 'boolean') {
    return (
      <div className="field field-check">
        <input
          id={id}
          type="checkbox"
          checked={value === undefined ? schema.default === true : value === true}
          aria-describedby={described}
          onChange={(event) => onChange(event.target.checked)}
        />
        <label htmlFor={id}>{label}</label>
      </div>
    );
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="number"
          min={schema.minimum}
          max={schema.maximum}
          step={schema.type === 'integer' ? 1 : 'any'}
          placeholder={schema.default !== undefined ? String(schema.default) : undefined}
          value={typeof value === 'number' && !Number.isNaN(value) ? value : ''}
          aria-invalid={problem !== undefined}
          aria-describedby={described}
          onChange={(event) => onChange(event.target.value === '' ? undefined : Number(event.target.value))}
        />
        {notes}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={typeof value === 'string' ? value : ''}
        aria-describedby={described}
        onChange={(event) => onChange(event.target.value || undefined)}
      />
      {notes}
    </div>
  );
}

/**
 * The lane's own controls, built from its JSON Schema (range and default shown, out-of-range values
 * flagged), with the estimated price where the catalog has one. `hide`: options another picker shows
 * (the native aspect ratio and resolution belong to the size picker).
 */
export function LaneOptionsFields({
  capabilities,
  choice,
  hide = [],
}: {
  capabilities: CapabilitiesBody;
  choice: LaneChoice;
  hide?: readonly string[];
}) {
  const options = useUi((state) => state.composer.options);
  const model = useUi((state) => state.composer.model);
  const count = useUi((state) => state.composer.count);
  const updateComposer = useUi((state) => state.updateComposer);
  const properties = Object.entries(optionProperties(choice)).filter(([name]) => !hide.includes(name));
  const price = estimatedPrice(choice, capabilities, model, options);
  if (properties.length === 0 && price === undefined) return null;
  return (
    <fieldset className="lane-options">
      <legend>{choice.label} options</legend>
      <div className="controls-grid">
        {properties.map(([name, schema]) => (
          <OptionField
            key={name}
            name={name}
            schema={schema}
            value={options[name]}
            onChange={(value) => updateComposer({ options: { ...options, [name]: value } })}
          />
        ))}
      </div>
      {price !== undefined && (
        <p className="price" data-price={price}>
          Estimated price: ${price.toFixed(3)} per image{count > 1 ? `, $${(price * count).toFixed(3)} for ${count}` : ''}
        </p>
      )}
    </fieldset>
  );
}
