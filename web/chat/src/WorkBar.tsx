import { useChat } from './model';
import type { GoalView, OrcState } from './contract';

function goalText(goal: GoalView | null): string {
  if (!goal) return 'none';
  const extra = goal.autoStopped
    ? ` — automatic turns stopped: ${goal.autoStopped}`
    : goal.pauseGate
      ? ` — pause gate armed: ${goal.pauseGate}`
      : '';
  return `${goal.objective} (${goal.status}${goal.continuations ? `, ${goal.continuations} automatic turns` : ''})${extra}`;
}

const orcText = (orc: OrcState | null): string =>
  !orc || orc.phase === 'idle' ? 'idle' : `${orc.phase} (${orc.status})${orc.task ? ` — ${orc.task}` : ''}`;

/**
 * The goal and the PABCD phase. Both are instance-wide on the server (one goal,
 * one orchestration at a time) and run in one session: the bar says which,
 * so another session does not look as if it had that goal.
 */
export function WorkBar() {
  const chat = useChat();
  const { goal, orc } = chat;
  const titleOf = (sessionId: string | undefined) =>
    chat.sessions.find((session) => session.id === sessionId)?.title || 'an untitled session';
  const scope = (sessionId: string | undefined) =>
    sessionId === undefined ? '' : sessionId === chat.currentSessionId ? 'this session' : `global, runs in “${titleOf(sessionId)}”`;
  const goalScope = goal && (goal.status === 'active' || goal.status === 'paused') ? scope(goal.sessionId) : '';
  const orcScope = orc && orc.phase !== 'idle' ? scope(orc.sessionId) : '';
  return (
    <div className="work-state">
      <div
        id="goal"
        className="goal"
        data-status={goal ? goal.status : 'none'}
        data-stopped={String(Boolean(goal?.autoStopped))}
        data-here={String(goal?.sessionId === chat.currentSessionId)}
      >
        <span className="label">Goal</span> <span id="goal-text">{goalText(goal)}</span>
        {goalScope && <span className="scope"> · {goalScope}</span>}
      </div>
      <div id="orc" className="orc" data-phase={orc?.phase ?? 'idle'} data-status={orc?.status ?? 'idle'}>
        <span className="label">PABCD</span> <span id="orc-text">{orcText(orc)}</span>
        {orcScope && <span className="scope"> · {orcScope}</span>}
      </div>
    </div>
  );
}
