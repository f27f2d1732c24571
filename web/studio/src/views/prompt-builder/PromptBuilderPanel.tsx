import { useRef, useState, type FormEvent } from 'react';
import type { ErrorPayload, PromptBuilderChatAnswer } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { ErrorNotice } from '../../components/ErrorNotice';
import { askPromptBuilder, configuredBackend, usePromptBuilderConfig, type ChatMessage } from './promptBuilder';
import './prompt-builder.css';

interface Exchange {
  message: ChatMessage;
  answer?: PromptBuilderChatAnswer;
}

/** Who answers: the backend of the last answer, else what the settings route to now. */
function BackendBadge({ last }: { last?: PromptBuilderChatAnswer }) {
  const config = usePromptBuilderConfig();
  const routed = configuredBackend(config.data);
  const backend = last?.backend ?? routed?.backend;
  const model = last?.model ?? routed?.model;
  const ready = last !== undefined || routed?.ready === true;
  return (
    <span
      className="pb-badge"
      data-backend={backend ?? ''}
      data-ready={ready}
      title={
        last
          ? `Answered by ${last.backend} (${last.model}); asked for ${last.requestedBackend}`
          : `Settings: ${config.data?.backend ?? '…'}`
      }
    >
      {backend ? `${backend}${model ? ` · ${model}` : ''}` : '…'}
      {!ready && ' (not ready)'}
    </span>
  );
}

/**
 * The prompt builder beside a composer: a conversation about the prompt whose
 * suggested prompt replaces the composer's with one click.
 */
export function PromptBuilderPanel({
  currentPrompt,
  onApply,
  label = 'Prompt builder',
}: {
  currentPrompt: string;
  onApply(prompt: string): void;
  label?: string;
}) {
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorPayload>();
  const abort = useRef<AbortController | undefined>(undefined);
  const last = [...exchanges].reverse().find((exchange) => exchange.answer)?.answer;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    const message: ChatMessage = { role: 'user', content: text };
    const history: ChatMessage[] = exchanges.flatMap((exchange) => [
      exchange.message,
      ...(exchange.answer
        ? [
            {
              role: 'assistant' as const,
              content: exchange.answer.suggestedPrompt
                ? `${exchange.answer.reply}\nPrompt: ${exchange.answer.suggestedPrompt}`
                : exchange.answer.reply,
            },
          ]
        : []),
    ]);
    setExchanges((current) => [...current, { message }]);
    setDraft('');
    setBusy(true);
    setError(undefined);
    abort.current = new AbortController();
    try {
      const answer = await askPromptBuilder(
        { messages: [...history, message].slice(-40), ...(currentPrompt.trim() ? { currentPrompt } : {}) },
        abort.current.signal,
      );
      setExchanges((current) => current.map((exchange) => (exchange.message === message ? { ...exchange, answer } : exchange)));
    } catch (caught) {
      setError(toErrorPayload(caught));
      setExchanges((current) => current.filter((exchange) => exchange.message !== message));
      setDraft(text);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="prompt-builder" aria-label={label}>
      <div className="pb-head">
        <h2>{label}</h2>
        <BackendBadge last={last} />
      </div>
      <ol className="pb-conversation" aria-live="polite">
        {exchanges.length === 0 && (
          <li className="hint">Describe what you want; the suggested prompt applies to the composer in one click.</li>
        )}
        {exchanges.map((exchange, index) => (
          <li key={index} className="pb-exchange">
            <p className="pb-user">{exchange.message.content}</p>
            {exchange.answer ? (
              <div className="pb-answer" data-backend={exchange.answer.backend}>
                <p>{exchange.answer.reply}</p>
                {exchange.answer.suggestedPrompt && (
                  <div className="pb-suggestion">
                    <p className="pb-suggested">{exchange.answer.suggestedPrompt}</p>
                    <button type="button" className="primary" onClick={() => onApply(exchange.answer?.suggestedPrompt ?? '')}>
                      Use this prompt
                    </button>
                  </div>
                )}
              </div>
            ) : (
              <p className="hint">Thinking…</p>
            )}
          </li>
        ))}
      </ol>
      {error && <ErrorNotice error={error} settingsHash="#prompt-builder" />}
      <form className="pb-composer" onSubmit={(event) => void send(event)}>
        <label className="visually-hidden" htmlFor="pb-input">
          Message to the prompt builder
        </label>
        <textarea
          id="pb-input"
          rows={2}
          value={draft}
          placeholder="Make it moodier, at night…"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) void send(event);
          }}
        />
        <div className="pb-buttons">
          <button type="submit" disabled={busy || draft.trim() === ''}>
            {busy ? 'Asking…' : 'Ask'}
          </button>
          {busy && (
            <button type="button" className="ghost" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          )}
          {exchanges.length > 0 && !busy && (
            <button type="button" className="ghost" onClick={() => setExchanges([])}>
              Clear
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
