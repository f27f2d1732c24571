import { useQueryClient } from '@tanstack/react-query';
import { AGENT_CANCELLABLE_STATES, AGENT_RETRYABLE_STATES, type AgentTurn } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { errorHelp } from '../../components/errorHelp';
import { useUi } from '../../store/ui';
import { cancelItem, mergeTurn, retryItem } from './agentApi';
import { progressText, type ItemProgress } from './useAgentLive';

/** The session's durable queue, newest first: each item's state, place and progress, with cancel and retry. */
export function AgentQueuePanel({ turns, progress }: { turns: AgentTurn[]; progress: Record<string, ItemProgress> }) {
  const queryClient = useQueryClient();
  const act = async (what: 'Cancel' | 'Retry', turn: AgentTurn) => {
    try {
      mergeTurn(queryClient, await (what === 'Cancel' ? cancelItem(turn.itemId) : retryItem(turn.itemId)));
    } catch (error) {
      const payload = toErrorPayload(error);
      useUi.getState().showToast(`${what} failed: ${errorHelp(payload).meaning} (${payload.code})`);
    }
  };
  const items = [...turns].reverse();
  return (
    <section className="agent-queue" aria-labelledby="agent-queue-title">
      <h2 id="agent-queue-title">Queue</h2>
      {items.length === 0 && <p className="hint">Nothing queued.</p>}
      <ol>
        {items.map((turn) => {
          const note =
            turn.state === 'queued'
              ? turn.position
                ? `#${turn.position} in line`
                : 'waiting'
              : turn.state === 'running'
                ? (progressText(progress[turn.itemId]) ?? 'Running')
                : turn.error && turn.state === 'failed'
                  ? turn.error.code
                  : '';
          return (
            <li key={turn.itemId} className="queue-item" data-item={turn.itemId} data-state={turn.state}>
              <span className="state-badge" data-state={turn.state}>
                {turn.state}
              </span>
              <span className="queue-prompt" title={turn.prompt}>
                {turn.prompt}
              </span>
              {note && <span className="hint queue-note">{note}</span>}
              {turn.state === 'running' && <progress className="queue-progress" aria-label="Progress" />}
              <span className="queue-actions">
                {AGENT_CANCELLABLE_STATES.includes(turn.state) && (
                  <button type="button" className="ghost" onClick={() => void act('Cancel', turn)} aria-label={`Cancel: ${turn.prompt}`}>
                    Cancel
                  </button>
                )}
                {AGENT_RETRYABLE_STATES.includes(turn.state) && (
                  <button type="button" className="ghost" onClick={() => void act('Retry', turn)} aria-label={`Retry: ${turn.prompt}`}>
                    Retry
                  </button>
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
