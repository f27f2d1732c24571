import {
  COMMON_SIZES,
  IMAGE_FORMATS,
  MODERATIONS,
  QUALITIES,
  REASONING_EFFORTS,
  sizeProblem,
  type CommonControl,
} from '../../api/contract';
import { useUi, type ComposerControls } from '../../store/ui';
import type { LaneChoice } from './laneChoice';

const CUSTOM = 'custom';

function ChoiceSelect({
  id,
  label,
  values,
  value,
  defaultLabel,
  onChange,
}: {
  id: string;
  label: string;
  values: readonly string[];
  value: string | undefined;
  defaultLabel: string;
  onChange(value: string | undefined): void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
        <option value="">{defaultLabel}</option>
        {values.map((entry) => (
          <option key={entry} value={entry}>
            {entry}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Size: the common sizes, or any `<width>x<height>` within the size rule (checked as typed). */
function SizeField({
  value,
  defaultSize,
  onChange,
}: {
  value: string | undefined;
  defaultSize?: string;
  onChange(value: string | undefined): void;
}) {
  const custom = value !== undefined && !(COMMON_SIZES as readonly string[]).includes(value);
  const problem = custom && value ? sizeProblem(value) : undefined;
  return (
    <div className="field">
      <label htmlFor="size">Size</label>
      <select
        id="size"
        value={custom ? CUSTOM : (value ?? '')}
        onChange={(event) => onChange(event.target.value === CUSTOM ? '1024x768' : event.target.value || undefined)}
      >
        <option value="">Default{defaultSize ? ` (${defaultSize})` : ' (auto)'}</option>
        {COMMON_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
        <option value={CUSTOM}>Custom…</option>
      </select>
      {custom && (
        <>
          <label htmlFor="size-custom" className="sub-label">
            Width x height
          </label>
          <input
            id="size-custom"
            value={value}
            onChange={(event) => onChange(event.target.value)}
            aria-invalid={problem !== undefined}
            aria-describedby="size-problem"
            inputMode="numeric"
          />
          {problem && (
            <p id="size-problem" className="field-problem">
              {problem}
            </p>
          )}
        </>
      )}
    </div>
  );
}

/** Only the shared controls the chosen lane takes (Size left to the size picker when `hideSize`). */
export function LaneControls({ choice, hideSize = false }: { choice: LaneChoice; hideSize?: boolean }) {
  const controls = useUi((state) => state.composer.controls);
  const setControl = useUi((state) => state.setControl);
  const has = (control: CommonControl) => choice.controls.includes(control);
  const set =
    <K extends keyof ComposerControls>(key: K) =>
    (value: string | undefined) =>
      setControl(key, value as ComposerControls[K]);
  if (choice.controls.length === 0) return <p className="hint">This lane takes no extra settings.</p>;
  return (
    <div className="controls-grid">
      {has('quality') && (
        <ChoiceSelect
          id="quality"
          label="Quality"
          values={QUALITIES}
          value={controls.quality}
          defaultLabel="Default (auto)"
          onChange={set('quality')}
        />
      )}
      {has('size') && !hideSize && <SizeField value={controls.size} defaultSize={choice.defaultSize} onChange={set('size')} />}
      {has('format') && (
        <ChoiceSelect
          id="format"
          label="Format"
          values={IMAGE_FORMATS}
          value={controls.format}
          defaultLabel="Default (png)"
          onChange={set('format')}
        />
      )}
      {has('moderation') && (
        <ChoiceSelect
          id="moderation"
          label="Moderation"
          values={MODERATIONS}
          value={controls.moderation}
          defaultLabel="Default (auto)"
          onChange={set('moderation')}
        />
      )}
      {has('reasoning') && (
        <ChoiceSelect
          id="reasoning"
          label="Reasoning"
          values={REASONING_EFFORTS}
          value={controls.reasoning}
          defaultLabel={`Default${choice.defaultReasoning ? ` (${choice.defaultReasoning})` : ''}`}
          onChange={set('reasoning')}
        />
      )}
      {has('negativePrompt') && (
        <div className="field field-wide">
          <label htmlFor="negative-prompt">Negative prompt</label>
          <textarea
            id="negative-prompt"
            rows={2}
            value={controls.negativePrompt ?? ''}
            onChange={(event) => setControl('negativePrompt', event.target.value || undefined)}
          />
        </div>
      )}
    </div>
  );
}
