import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { REASONING_EFFORTS, type DefaultsRequest } from '../../api/contract';
import { api, toErrorPayload } from '../../api/http';
import { lanesOf, queryKeys, useCapabilities, useDefaults } from '../../api/queries';
import type { DefaultsBody, Sourced } from '../../api/responses';
import { ErrorNotice } from '../../components/ErrorNotice';

const SOURCES: Record<string, string> = { env: 'from the environment', config: 'saved', builtin: 'built in' };

function Source({ sourced }: { sourced?: Sourced<unknown> }) {
  if (!sourced) return null;
  return (
    <span className="source" data-source={sourced.source}>
      {SOURCES[sourced.source] ?? sourced.source}
    </span>
  );
}

const text = (sourced?: Sourced<unknown>) => (typeof sourced?.value === 'string' ? sourced.value : '');

/** The default model and reasoning (shared by the oauth and api lanes) and the video target. */
export function DefaultsSection() {
  const queryClient = useQueryClient();
  const capabilities = useCapabilities();
  const defaults = useDefaults();
  const [draft, setDraft] = useState<DefaultsRequest>({});
  const save = useMutation({
    mutationFn: (change: DefaultsRequest) => api<DefaultsBody>('/api/defaults', { method: 'PUT', body: change }),
    onSuccess: (body) => {
      queryClient.setQueryData(queryKeys.defaults, body);
      setDraft({});
    },
  });

  const body = defaults.data;
  const chatModels = (capabilities.data?.models ?? []).filter((model) => model.kind === 'chat');
  const videoTargets = lanesOf(capabilities.data).flatMap((lane) =>
    lane.defaultVideoModel
      ? (capabilities.data?.models ?? [])
          .filter((model) => model.kind === 'video' && model.providers.includes(lane.id))
          .map((model) => `${lane.id}/${model.id}`)
      : [],
  );
  const currentModel = text(body?.oauth?.model);
  const currentReasoning = text(body?.oauth?.reasoning);
  const currentVideo = body ? `${body.video.value.lane}/${body.video.value.model}` : '';
  const fromEnv = [body?.oauth?.model, body?.api?.model, body?.oauth?.reasoning, body?.api?.reasoning].some(
    (sourced) => sourced?.source === 'env',
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(draft).length > 0) save.mutate(draft);
  };

  return (
    <section className="settings-section" aria-labelledby="defaults-title">
      <h2 id="defaults-title">Defaults</h2>
      {defaults.error && <ErrorNotice error={toErrorPayload(defaults.error)} />}
      {body && (
        <form className="defaults-form" onSubmit={submit}>
          <div className="field">
            <label htmlFor="default-model">Model</label>
            <select
              id="default-model"
              value={draft.model ?? currentModel}
              onChange={(event) => setDraft({ ...draft, model: event.target.value })}
            >
              {chatModels.map((model) => (
                <option key={model.id} value={model.id}>
                  {model.id}
                  {model.compatibility ? ' (compatibility)' : ''}
                </option>
              ))}
            </select>
            <p className="hint">
              oauth: {text(body.oauth?.model)} <Source sourced={body.oauth?.model} /> · api: {text(body.api?.model)}{' '}
              <Source sourced={body.api?.model} />
            </p>
          </div>
          <div className="field">
            <label htmlFor="default-reasoning">Reasoning</label>
            <select
              id="default-reasoning"
              value={draft.reasoning ?? currentReasoning}
              onChange={(event) => setDraft({ ...draft, reasoning: event.target.value as DefaultsRequest['reasoning'] })}
            >
              {REASONING_EFFORTS.map((effort) => (
                <option key={effort} value={effort}>
                  {effort}
                </option>
              ))}
            </select>
            <p className="hint">
              <Source sourced={body.oauth?.reasoning} />
            </p>
          </div>
          <div className="field">
            <label htmlFor="default-video">Video target</label>
            <select
              id="default-video"
              value={draft.video ?? currentVideo}
              onChange={(event) => setDraft({ ...draft, video: event.target.value })}
            >
              {!videoTargets.includes(currentVideo) && <option value={currentVideo}>{currentVideo}</option>}
              {videoTargets.map((target) => (
                <option key={target} value={target}>
                  {target}
                </option>
              ))}
            </select>
            <p className="hint">
              <Source sourced={body.video} />
            </p>
          </div>
          {fromEnv && (
            <p className="hint">
              A value set in the environment wins over a saved one: saving here takes effect where the environment sets nothing.
            </p>
          )}
          <div className="form-actions">
            <button type="submit" className="primary" disabled={Object.keys(draft).length === 0 || save.isPending}>
              {save.isPending ? 'Saving…' : 'Save defaults'}
            </button>
            {Object.keys(draft).length > 0 && (
              <button type="button" className="ghost" onClick={() => setDraft({})}>
                Discard changes
              </button>
            )}
          </div>
          {save.error && <ErrorNotice error={toErrorPayload(save.error)} />}
          {save.data?.equivalents && (
            <p className="hint" role="status">
              {Object.entries(save.data.equivalents)
                .map(([lane, { requested, stored }]) => `${lane} has no ${requested}: it keeps ${stored}, its nearest equivalent.`)
                .join(' ')}
            </p>
          )}
          {save.isSuccess && !save.data?.equivalents && (
            <p className="hint" role="status">
              Saved.
            </p>
          )}
        </form>
      )}
    </section>
  );
}
