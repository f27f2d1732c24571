import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ErrorPayload, PromptBuilderConfig } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { ErrorNotice } from '../../components/ErrorNotice';
import { promptBuilderConfigKey, savePromptBuilderConfig, usePromptBuilderConfig } from './promptBuilder';
import './prompt-builder.css';

/** The models a choice offers: the backend's, or with `auto` every backend's. */
const modelsOf = (config: PromptBuilderConfig, backend: string): string[] =>
  backend === 'auto'
    ? [...new Set(config.backends.flatMap((entry) => entry.models))]
    : (config.backends.find((entry) => entry.id === backend)?.models ?? []);

function Locked({ config, field }: { config: PromptBuilderConfig; field: 'backend' | 'model' }) {
  if (!config.locked[field]) return null;
  return (
    <p className="hint pb-locked" data-locked-field={field}>
      Locked: the environment variable <code>{config.env[field]}</code> fixes it; change it there and restart the studio.
    </p>
  );
}

/** Settings: which backend answers the prompt builder (and the Agent planner) and with which model. */
export function PromptBuilderSection() {
  const queryClient = useQueryClient();
  const config = usePromptBuilderConfig();
  const [draft, setDraft] = useState<{ backend?: string; model?: string }>({});
  const [error, setError] = useState<ErrorPayload>();
  const [saved, setSaved] = useState(false);
  const data = config.data;
  const backend = draft.backend ?? data?.backend ?? 'auto';
  const model = draft.model ?? (draft.backend === undefined ? (data?.model ?? '') : '');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      const next = await savePromptBuilderConfig({ backend, model: model === '' ? null : model });
      queryClient.setQueryData(promptBuilderConfigKey, next);
      setDraft({});
      setSaved(true);
    } catch (caught) {
      setError(toErrorPayload(caught));
    }
  };

  return (
    <section className="settings-section" id="prompt-builder" aria-labelledby="prompt-builder-title">
      <h2 id="prompt-builder-title">Prompt builder</h2>
      <p className="hint">
        The backend that answers the prompt builder in Classic and Video, and plans Agent turns. Auto takes the first ready one of{' '}
        {data ? data.autoOrder.join(', ') : '…'}.
      </p>
      {config.error && <ErrorNotice error={toErrorPayload(config.error)} />}
      {data && (
        <form className="pb-settings" onSubmit={(event) => void submit(event)}>
          <div className="field">
            <label htmlFor="pb-backend">Backend</label>
            <select
              id="pb-backend"
              value={backend}
              disabled={data.locked.backend}
              onChange={(event) => setDraft({ backend: event.target.value })}
            >
              {['auto', ...data.autoOrder].map((id) => {
                const entry = data.backends.find((candidate) => candidate.id === id);
                return (
                  <option key={id} value={id}>
                    {id}
                    {entry && !entry.ready ? ' (not ready)' : ''}
                  </option>
                );
              })}
            </select>
            <Locked config={data} field="backend" />
          </div>
          <div className="field">
            <label htmlFor="pb-model">Model</label>
            <select
              id="pb-model"
              value={model}
              disabled={data.locked.model}
              onChange={(event) => setDraft({ backend, model: event.target.value })}
            >
              <option value="">The backend's default</option>
              {modelsOf(data, backend).map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
            <Locked config={data} field="model" />
          </div>
          <div className="form-actions">
            <button
              type="submit"
              className="primary"
              disabled={Object.keys(draft).length === 0 || (data.locked.backend && data.locked.model)}
            >
              Save
            </button>
            {saved && (
              <span className="hint" role="status">
                Saved.
              </span>
            )}
          </div>
          {error && <ErrorNotice error={error} />}
          <ul className="pb-backends">
            {data.backends.map((entry) => (
              <li key={entry.id} data-backend={entry.id} data-ready={entry.ready}>
                <strong>{entry.id}</strong>{' '}
                <span className="state-badge" data-state={entry.ready ? 'ready' : 'unavailable'}>
                  {entry.ready ? 'Ready' : 'Not ready'}
                </span>{' '}
                <span className="hint">
                  {entry.reason} Default model {entry.defaultModel}.
                </span>
              </li>
            ))}
          </ul>
        </form>
      )}
    </section>
  );
}
