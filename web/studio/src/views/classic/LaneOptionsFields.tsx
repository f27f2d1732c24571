import type { CapabilitiesBody } from '../../api/contract';
import { useUi } from '../../store/ui';
import { estimatedPrice, type LaneChoice } from './laneChoice';

/** The part of JSON Schema a lane's options use. */
interface PropertySchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  description?: string;
  title?: string;
}

const labelOf = (name: string, schema: PropertySchema) => schema.title ?? name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (first) => first.toUpperCase());

function OptionField({ name, schema, value, onChange }: { name: string; schema: PropertySchema; value: unknown; onChange(value: unknown): void }) {
  const id = `option-${name}`;
  const label = labelOf(name, schema);
  if (schema.enum) {
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select id={id} value={value === undefined ? '' : String(value)} onChange={(event) => onChange(event.target.value === '' ? undefined : schema.enum?.find((entry) => String(entry) === event.target.value))}>
          <option value="">Default</option>
          {schema.enum.map((entry) => (
            <option key={String(entry)} value={String(entry)}>
              {String(entry)}
            </option>
          ))}
        </select>
      </div>
    );
  }
  if (schema.type === 'boolean') {
    return (
      <div className="field field-check">
        <input id={id} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked ? true : undefined)} />
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
          value={typeof value === 'number' ? value : ''}
          onChange={(event) => onChange(event.target.value === '' ? undefined : Number(event.target.value))}
        />
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.target.value || undefined)} />
    </div>
  );
}

/** The lane's own controls, built from its JSON Schema, with the estimated price where the catalog has one. */
export function LaneOptionsFields({ capabilities, choice }: { capabilities: CapabilitiesBody; choice: LaneChoice }) {
  const options = useUi((state) => state.composer.options);
  const model = useUi((state) => state.composer.model);
  const count = useUi((state) => state.composer.count);
  const updateComposer = useUi((state) => state.updateComposer);
  const properties = (choice.options?.properties ?? {}) as Record<string, PropertySchema>;
  const price = estimatedPrice(choice, capabilities, model, options);
  if (Object.keys(properties).length === 0 && price === undefined) return null;
  return (
    <fieldset className="lane-options">
      <legend>{choice.label} options</legend>
      <div className="controls-grid">
        {Object.entries(properties).map(([name, schema]) => (
          <OptionField key={name} name={name} schema={schema} value={options[name]} onChange={(value) => updateComposer({ options: { ...options, [name]: value } })} />
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
