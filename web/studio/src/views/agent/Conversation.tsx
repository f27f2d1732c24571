import { useEffect, useRef } from 'react';
import type { AgentTurn } from '../../api/contract';
import { withToken } from '../../api/token';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatMs } from '../../components/format';

/** Who decided the turn, in words. */
export function decidedByText(turn: AgentTurn): string | undefined {
  const plan = turn.plan;
  if (!plan) return undefined;
  if (plan.decidedBy === 'planner') return `planner ${plan.backend ?? ''}${plan.model ? ` · ${plan.model}` : ''}`;
  if (plan.decidedBy === 'rules') return `rules${plan.fallbackReason ? ` (${plan.fallbackReason})` : ''}`;
  return `command /${turn.command ?? ''}`;
}

function Turn({ turn, onPick }: { turn: AgentTurn; onPick(filename: string): void }) {
  const reply = turn.reply ?? turn.plan?.reply;
  return (
    <li className="turn" data-item={turn.itemId} data-state={turn.state}>
      <p className="turn-user">{turn.prompt}</p>
      <div className="turn-agent">
        {turn.plan && (
          <p className="turn-plan">
            <span className="state-badge">
              {turn.plan.action === 'answer' ? 'answer' : `${turn.plan.action}${turn.plan.variants > 1 ? ` × ${turn.plan.variants}` : ''}`}
            </span>{' '}
            <span className="hint">{decidedByText(turn)}</span>
          </p>
        )}
        {reply && <p className="turn-reply">{reply}</p>}
        {turn.finalPrompt && turn.plan?.action !== 'answer' && <p className="turn-final hint">Prompt: {turn.finalPrompt}</p>}
        {turn.images.length > 0 && (
          <div className="turn-images">
            {turn.images.map((image) => (
              <button
                key={image.filename}
                type="button"
                className="turn-image"
                data-filename={image.filename}
                title="Make current"
                onClick={() => onPick(image.filename)}
              >
                <img src={withToken(image.thumbnailUrl)} alt={image.prompt} width={120} height={120} loading="lazy" />
              </button>
            ))}
          </div>
        )}
        <p className="turn-meta hint">
          {turn.state}
          {turn.provider ? ` · ${turn.provider}${turn.model ? ` / ${turn.model}` : ''}` : ''}
          {turn.timings ? ` · ${formatMs(turn.timings.totalMs)}` : ''}
          {turn.attempt > 1 ? ` · attempt ${turn.attempt}` : ''}
        </p>
        {turn.error && turn.state !== 'cancelled' && <ErrorNotice error={turn.error} />}
      </div>
    </li>
  );
}

/** The session's turns, oldest first, kept scrolled to the newest. */
export function Conversation({ turns, onPick }: { turns: AgentTurn[]; onPick(filename: string): void }) {
  const list = useRef<HTMLOListElement>(null);
  const last = turns.at(-1);
  // Scrolls the list only (never the page) to its newest turn.
  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [turns.length, last?.state]);
  return (
    <ol ref={list} className="conversation" aria-label="Conversation" aria-live="polite">
      {turns.length === 0 && <li className="hint">No turns yet. Ask for an image, or type / for the commands.</li>}
      {turns.map((turn) => (
        <Turn key={turn.itemId} turn={turn} onPick={onPick} />
      ))}
    </ol>
  );
}
