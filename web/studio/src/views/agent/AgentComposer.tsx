import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { AGENT_COMMANDS, AGENT_COMMAND_NAMES, API_LIMITS, type AgentCommand, type ErrorPayload } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { ErrorNotice } from '../../components/ErrorNotice';

/** The commands a draft's leading `/word` (no space typed yet) may be completing. */
export function completionsOf(draft: string): AgentCommand[] {
  const match = /^\/([a-z]*)$/.exec(draft);
  if (!match) return [];
  return AGENT_COMMAND_NAMES.filter((name) => name.startsWith(match[1] ?? ''));
}

/** The text box of a session: Enter queues the turn, Shift+Enter is a new line, `/` offers the commands (Tab or Enter completes). */
export function AgentComposer({ onSend }: { onSend(prompt: string): Promise<void> }) {
  const [draft, setDraft] = useState('');
  const [active, setActive] = useState(0);
  const [error, setError] = useState<ErrorPayload>();
  const [sending, setSending] = useState(false);
  const options = completionsOf(draft);
  const open = options.length > 0 && !(options.length === 1 && draft === `/${options[0]}`);
  const highlighted = options[Math.min(active, options.length - 1)];

  const complete = (name: AgentCommand) => {
    // Commands that take no text are complete as they are.
    setDraft(name === 'undo' || name === 'help' ? `/${name}` : `/${name} `);
    setActive(0);
  };

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const prompt = draft.trim();
    if (!prompt || sending) return;
    setSending(true);
    setError(undefined);
    try {
      await onSend(prompt);
      setDraft('');
    } catch (caught) {
      setError(toErrorPayload(caught));
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open && highlighted) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((index) => (index + step + options.length) % options.length);
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey)) {
        event.preventDefault();
        complete(highlighted);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setDraft(`${draft} `);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <form className="agent-composer" onSubmit={(event) => void send(event)} aria-label="Message">
      {open && (
        <ul className="slash-list" id="slash-list" role="listbox" aria-label="Commands">
          {options.map((name) => (
            <li
              key={name}
              id={`slash-${name}`}
              role="option"
              aria-selected={name === highlighted}
              data-command={name}
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => complete(name)}
            >
              <code>{AGENT_COMMANDS[name].usage}</code> <span className="hint">{AGENT_COMMANDS[name].does}</span>
            </li>
          ))}
        </ul>
      )}
      <label className="visually-hidden" htmlFor="agent-input">
        Message to the agent
      </label>
      <textarea
        id="agent-input"
        rows={2}
        value={draft}
        maxLength={API_LIMITS.promptMaxChars}
        placeholder="A lighthouse at dusk… or / for commands"
        role="combobox"
        aria-expanded={open}
        aria-controls="slash-list"
        aria-autocomplete="list"
        aria-activedescendant={open && highlighted ? `slash-${highlighted}` : undefined}
        onChange={(event) => {
          setDraft(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <button type="submit" className="primary" disabled={sending || draft.trim() === ''}>
        Send
      </button>
      {error && <ErrorNotice error={error} />}
    </form>
  );
}
