import type { AgentId } from '../agents/catalog.js';
import { ORC_PHASES, type OrcPhase, type OrcState } from '../orchestration/phases.js';
import { validatePrompt } from '../prompt.js';
import type { ChatRuntime } from '../runtime.js';
import { answer, usageError, type PreparedCommand } from './types.js';

const describe = (state: OrcState): string =>
  state.phase === 'idle'
    ? 'Orchestration idle.'
    : `Orchestration phase ${state.phase} (${state.status})${state.task ? `: ${state.task}` : ''}`;

const isPhase = (value: string): value is OrcPhase => (ORC_PHASES as readonly string[]).includes(value);

/** `/orc …`: the transition happens here, so a refused one is an ordinary error before the stream. */
export function prepareOrcCommand(
  runtime: ChatRuntime,
  argument: string,
  options: { sessionId?: string; agent?: AgentId },
): PreparedCommand {
  const { orchestrator } = runtime;
  const [, word = '', rest = ''] = /^(\S*)\s*([\s\S]*)$/.exec(argument) ?? [];
  const action = word || 'status';
  let state: OrcState;
  if (action === 'status' && !rest) state = orchestrator.current;
  else if (action === 'start')
    state = orchestrator.start({ task: validatePrompt(rest), sessionId: options.sessionId, agent: options.agent });
  else if (action === 'next' && !rest) state = orchestrator.next();
  else if (action === 'reset' && !rest) state = orchestrator.reset();
  else if (isPhase(action) && action !== 'idle' && action !== 'plan' && !rest) state = orchestrator.next(action);
  else throw usageError('orc');
  return answer('orc', describe(state), { action, state });
}
