import { summarizeGoal, type Goal } from '../goals/goal.js';
import type { CheckpointInput } from '../goals/goal-service.js';
import { goalText } from '../goals/goal-text.js';
import type { ChatRuntime } from '../runtime.js';
import { answer, usageError, type PreparedCommand } from './types.js';
import type { AgentId } from '../agents/catalog.js';

const HISTORY_SHOWN = 20;

function describe(goal: Goal | undefined): string {
  if (!goal) return 'No current goal.';
  const lines = [`Goal ${goal.id} (${goal.status}): ${goal.objective}`];
  const latest = goal.checkpoints.at(-1);
  if (latest) {
    lines.push(`Latest checkpoint: ${latest.summary}${latest.nextAction ? ` — next: ${latest.nextAction}` : ''}`);
    if (latest.evidence.length > 0) lines.push(`Evidence: ${latest.evidence.join('; ')}`);
  }
  if (goal.autoStopped) lines.push(`Automatic continuation stopped: ${goal.autoStopped}`);
  else if (goal.pauseGate !== undefined) lines.push(`Pause gate armed: ${goal.pauseGate}`);
  return lines.join('\n');
}

/** `<summary> | next: <action> | evidence: <a>; <b>` → a checkpoint. */
export function parseCheckpoint(text: string): CheckpointInput {
  const [summary = '', ...parts] = text.split(/\s+\|\s+/);
  const input: CheckpointInput = { summary: goalText(summary, 'checkpoint summary'), evidence: [] };
  for (const part of parts) {
    const match = /^(next|evidence):\s*([\s\S]*)$/i.exec(part.trim());
    if (!match) throw usageError('goal');
    if (match[1].toLowerCase() === 'next') input.nextAction = goalText(match[2], 'next action');
    else
      input.evidence = match[2]
        .split(';')
        .map((item) => item.trim())
        .filter(Boolean)
        .map((item) => goalText(item, 'evidence item'));
  }
  return input;
}

const goalAnswer = (action: string, goal: Goal | undefined): PreparedCommand =>
  answer('goal', describe(goal), { action, goal: goal ? summarizeGoal(goal) : null });

/**
 * `/goal …`: the change happens here, while the command is prepared, so a
 * refusal (GOAL_ACTIVE, GOAL_EVIDENCE_REQUIRED...) is an ordinary error
 * answer before the stream starts.
 */
export function prepareGoalCommand(
  runtime: ChatRuntime,
  argument: string,
  options: { sessionId?: string; agent?: AgentId },
): PreparedCommand {
  const { goals } = runtime;
  const [, word = '', rest = ''] = /^(\S*)\s*([\s\S]*)$/.exec(argument) ?? [];
  const action = word || 'show';
  switch (action) {
    case 'show':
      return goalAnswer(action, goals.current());
    case 'history': {
      const history = goals.history(HISTORY_SHOWN);
      const text =
        history.length === 0 ? 'No goals yet.' : history.map((goal) => `${goal.id} ${goal.status} — ${goal.objective}`).join('\n');
      return answer('goal', text, { action, goals: history.map(summarizeGoal) });
    }
    case 'set': {
      const replace = /^--replace(\s|$)/.test(rest);
      const objective = goalText(replace ? rest.replace(/^--replace\s*/, '') : rest, 'objective');
      const goal = goals.set({ objective, replace, sessionId: options.sessionId, agent: options.agent });
      return goalAnswer(action, goal);
    }
    case 'refine':
      return goalAnswer(action, goals.refine(goalText(rest, 'objective')));
    case 'update':
      return goalAnswer(action, goals.update(parseCheckpoint(rest)));
    case 'pause':
      return goalAnswer(action, goals.pause(rest.trim() || undefined));
    case 'resume':
    case 'done':
    case 'cancel':
    case 'clear': {
      if (rest.trim()) throw usageError('goal');
      const goal =
        action === 'resume' ? goals.resume() : action === 'done' ? goals.done() : action === 'cancel' ? goals.cancel() : goals.clear();
      return goalAnswer(action, goal);
    }
    default:
      throw usageError('goal');
  }
}
