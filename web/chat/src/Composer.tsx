import { useEffect, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import { useChat } from './model';
import { elapsed } from './time';

/** The prompt box, the agent, Cancel and Send; the waiting messages above it. */
export function Composer({ promptRef }: { promptRef: RefObject<HTMLTextAreaElement | null> }) {
  const chat = useChat();
  const [text, setText] = useState('');
  const waiting = chat.items.flatMap((item) =>
    item.kind === 'user' && item.message.traceId && chat.runs.get(item.message.traceId)?.status === 'waiting' ? [item.message] : [],
  );

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const prompt = text.trim();
    if (!prompt) return;
    setText('');
    chat.submit(prompt);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      submit();
    }
  };
  return (
    <form id="prompt-form" className="prompt-form" onSubmit={submit}>
      {waiting.length > 0 && (
        <ol className="waiting" aria-label="Waiting messages">
          {waiting.map((message) => (
            <li key={message.id}>
              <span className="waiting-text">{message.content}</span>
              <button
                type="button"
                className="steer-now"
                title="Stop the running answer and run this one now"
                onClick={() => void chat.steerNow(message)}
              >
                Steer now
              </button>
              <button
                type="button"
                className="withdraw"
                title="Take this message out of the queue"
                onClick={() => void chat.withdraw(message)}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <textarea
        id="prompt"
        ref={promptRef}
        name="prompt"
        rows={3}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        placeholder="Message the agent, or a /command (/help). Enter sends, Shift+Enter breaks the line."
      />
      <div className="prompt-actions">
        <label>
          Agent{' '}
          <select id="agent" name="agent" value={chat.agent} onChange={(event) => chat.setAgent(event.target.value)}>
            {chat.agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.label}
                {agent.available ? '' : ' (not installed)'}
              </option>
            ))}
          </select>
        </label>
        <button id="cancel" type="button" title="Stop the running answer (/cancel, Alt+X)" onClick={() => chat.submit('/cancel')}>
          Cancel
        </button>
        <button id="send" type="submit">
          Send
        </button>
      </div>
    </form>
  );
}

/** The session's queue: the running turn with its elapsed time, and how many wait. */
export function QueueState() {
  const chat = useChat();
  const [now, setNow] = useState(Date.now());
  const active = chat.queue?.activeTraceId ? chat.runs.get(chat.queue.activeTraceId) : undefined;
  useEffect(() => {
    if (!chat.queue?.active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [chat.queue?.active]);
  const parts: string[] = [];
  if (chat.queue?.active) parts.push(active?.startedAt ? `running ${elapsed(now - active.startedAt)}` : 'running');
  if (chat.queue?.pending) parts.push(`${chat.queue.pending} waiting`);
  return (
    <span id="queue-state" className="queue-state">
      {parts.join(' · ')}
    </span>
  );
}
