import { useQueryClient } from '@tanstack/react-query';
import { useState, type ClipboardEvent, type FormEvent, type KeyboardEvent } from 'react';
import { API_LIMITS, sizeProblem, type CapabilitiesBody, type ProviderId, type ProviderStatus } from '../../api/contract';
import type { DefaultsBody } from '../../api/responses';
import { withToken } from '../../api/token';
import { useUi } from '../../store/ui';
import { startGeneration } from './generate';
import { laneChoice } from './laneChoice';
import { LaneControls } from './LaneControls';
import { LaneOptionsFields } from './LaneOptionsFields';
import { LanePicker } from './LanePicker';
import { ModelPicker } from './ModelPicker';
import { hasNativeSize, NATIVE_SIZE_OPTIONS, optionProblems } from './optionRules';
import { SizeModePicker, type SizeMode } from './SizeModePicker';
import './composer.css';
import { ReferenceTray } from './ReferenceTray';
import { referencesFromFiles } from './references';

/** Why Generate cannot run now, or undefined when it can. */
function blocker(props: {
  prompt: string;
  ready: boolean;
  references: number;
  maxReferences: number;
  size?: string;
  editing: boolean;
  canEdit: boolean;
  optionProblems: string[];
}): string | undefined {
  if (!props.ready) return 'The chosen lane is not ready.';
  if (props.prompt.trim() === '') return 'Write a prompt first.';
  if (props.prompt.length > API_LIMITS.promptMaxChars) return `The prompt is over ${API_LIMITS.promptMaxChars} characters.`;
  if (props.editing && !props.canEdit) return 'This lane cannot edit images.';
  if (props.references > props.maxReferences) return 'Too many references for this lane.';
  if (props.size && sizeProblem(props.size)) return `Size: ${sizeProblem(props.size)}.`;
  if (props.optionProblems.length > 0) return `${props.optionProblems[0]}.`;
  return undefined;
}

/** The prompt, the lane and its settings, the references, and Generate. */
export function PromptComposer({
  capabilities,
  providers,
  defaults,
}: {
  capabilities: CapabilitiesBody;
  providers: ProviderStatus[] | undefined;
  defaults: DefaultsBody | undefined;
}) {
  const queryClient = useQueryClient();
  const composer = useUi((state) => state.composer);
  const updateComposer = useUi((state) => state.updateComposer);
  const addReferences = useUi((state) => state.addReferences);
  const [refused, setRefused] = useState<string[]>([]);
  const [chosenSizeMode, setSizeMode] = useState<SizeMode>();
  const choice = laneChoice(composer.provider, capabilities, providers, defaults, composer.model);
  // Size, or the lane's native aspect ratio and resolution (alpha): one or the other, never both.
  const nativeSize = hasNativeSize(choice);
  const nativeChosen = NATIVE_SIZE_OPTIONS.some((name) => composer.options[name] !== undefined);
  const sizeMode: SizeMode = chosenSizeMode ?? (nativeChosen ? 'native' : 'size');
  const changeSizeMode = (mode: SizeMode) => {
    setSizeMode(mode);
    if (mode === 'native') useUi.getState().setControl('size', undefined);
    else
      updateComposer({
        options: Object.fromEntries(
          Object.entries(composer.options).filter(([name]) => !(NATIVE_SIZE_OPTIONS as readonly string[]).includes(name)),
        ),
      });
  };
  const problems = optionProblems(choice, composer.options);
  const maxOutputs = API_LIMITS.multimodeMaxOutputs;
  const editing = composer.editImage !== undefined;
  const maxReferences = Math.max(0, choice.maxInputImages - (editing ? 1 : 0));
  const blocked = blocker({
    prompt: composer.prompt,
    ready: choice.ready,
    references: composer.references.length,
    maxReferences,
    size: choice.controls.includes('size') && !(nativeSize && sizeMode === 'native') ? composer.controls.size : undefined,
    editing,
    canEdit: choice.edit,
    optionProblems: problems,
  });

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (blocked) return;
    void startGeneration(queryClient, composer, choice);
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files).filter((file) => file.type.startsWith('image/'));
    if (files.length === 0) return;
    event.preventDefault();
    void referencesFromFiles(files).then(({ added, refused: reasons }) => {
      if (added.length) addReferences(added);
      setRefused(reasons);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Ctrl/Cmd+Enter generates; Enter alone is a new line.
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit();
  };

  return (
    <form className="composer" onSubmit={submit} aria-label="Composer">
      {composer.editImage && (
        <div className="edit-target" data-filename={composer.editImage.filename}>
          <img src={withToken(composer.editImage.thumbnailUrl)} alt="" width={48} height={48} />
          <span>
            Editing <strong>{composer.editImage.prompt}</strong>
          </span>
          <button type="button" className="ghost" onClick={() => updateComposer({ editImage: undefined })}>
            Stop editing
          </button>
        </div>
      )}
      <div className="field field-wide">
        <label htmlFor="prompt">{editing ? 'What to change' : 'Prompt'}</label>
        <textarea
          id="prompt"
          rows={4}
          value={composer.prompt}
          maxLength={API_LIMITS.promptMaxChars}
          placeholder="A red kite over green hills at dawn"
          onChange={(event) => updateComposer({ prompt: event.target.value })}
          onPaste={onPaste}
          onKeyDown={onKeyDown}
          aria-describedby="prompt-hint"
        />
        <p id="prompt-hint" className="hint">
          Ctrl+Enter generates. Paste images to add them as references.
        </p>
      </div>

      {/* A lane that takes no reference images shows no drop zone (unless some are there to remove). */}
      {(maxReferences > 0 || composer.references.length > 0) && (
        <ReferenceTray capabilities={capabilities} choice={choice} onFilesRefused={setRefused} />
      )}
      {refused.length > 0 && (
        <ul className="field-problem" role="alert">
          {refused.map((reason) => (
            <li key={reason}>Not added: {reason}</li>
          ))}
        </ul>
      )}

      <div className="controls-grid">
        <LanePicker
          capabilities={capabilities}
          providers={providers}
          choice={choice}
          onChange={(provider: ProviderId) => {
            setSizeMode(undefined);
            updateComposer({ provider, model: '', options: {} });
          }}
        />
        <ModelPicker capabilities={capabilities} choice={choice} value={composer.model} onChange={(model) => updateComposer({ model })} />
      </div>
      {nativeSize && (
        <SizeModePicker
          choice={choice}
          mode={sizeMode}
          options={composer.options}
          onMode={changeSizeMode}
          onOption={(name, value) => updateComposer({ options: { ...composer.options, [name]: value } })}
        />
      )}
      <LaneControls choice={choice} hideSize={nativeSize && sizeMode === 'native'} />
      <LaneOptionsFields capabilities={capabilities} choice={choice} hide={nativeSize ? NATIVE_SIZE_OPTIONS : []} />

      <div className="generate-bar">
        {choice.multimode && !editing && (
          <div className="field field-inline">
            <label htmlFor="count">Images</label>
            <input
              id="count"
              type="number"
              min={1}
              max={maxOutputs}
              value={composer.count}
              step={1}
              onChange={(event) =>
                updateComposer({ count: Math.min(maxOutputs, Math.max(1, Math.round(Number(event.target.value)) || 1)) })
              }
            />
          </div>
        )}
        <button type="submit" className="primary" disabled={blocked !== undefined} aria-describedby="generate-blocker">
          {editing ? 'Edit' : composer.count > 1 && choice.multimode ? `Generate ${composer.count}` : 'Generate'}
        </button>
        {blocked && (
          <span id="generate-blocker" className="hint">
            {blocked}
          </span>
        )}
      </div>
    </form>
  );
}
