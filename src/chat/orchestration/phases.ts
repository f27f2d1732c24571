// PABCD orchestration as data: the phases in order, what each one asks the
// agent, and the one rule for moving between them.
import type { DoneStatus } from '../agents/types.js';

export const ORC_PHASES = ['idle', 'plan', 'audit', 'build', 'check', 'done'] as const;
export type OrcPhase = (typeof ORC_PHASES)[number];

/** `idle` in the idle phase, `running` while a phase's turn runs, then how that turn ended. */
export type OrcStatus = 'idle' | 'running' | DoneStatus;

export interface OrcState {
  phase: OrcPhase;
  status: OrcStatus;
  /** The task the orchestration works on (set by start). */
  task?: string;
  /** The session its phase turns run in. */
  sessionId?: string;
  /** The current phase's turn. */
  traceId?: string;
  updatedAt: string;
}

export const IDLE_STATE = (): OrcState => ({ phase: 'idle', status: 'idle', updatedAt: new Date().toISOString() });

/** The phase after each one; `done` and `idle` have none (start and reset leave them). */
export const NEXT_PHASE: Readonly<Partial<Record<OrcPhase, Exclude<OrcPhase, 'idle'>>>> = {
  plan: 'audit',
  audit: 'build',
  build: 'check',
  check: 'done',
};

/** What each phase asks of the agent. `{checks}` is the configured check command. */
const PHASE_PROMPTS: Readonly<Record<Exclude<OrcPhase, 'idle'>, string>> = {
  plan: 'PABCD phase Plan. Task: {task}\nWrite a short numbered plan for this task: the steps, the files they touch, and how each step will be checked. Do not change anything yet.',
  audit:
    'PABCD phase Audit. Task: {task}\nReview the plan you wrote: risks, missing steps, wrong assumptions, simpler ways. Give the corrected plan.',
  build: 'PABCD phase Build. Task: {task}\nCarry out the audited plan step by step. Say what you changed after each step.',
  check:
    "PABCD phase Check. Task: {task}\nRun the project's checks ({checks}) and report each one's command and result. Fix what fails and run them again.",
  done: 'PABCD phase Done. Task: {task}\nSummarize what was done, the results of the checks, and anything left open.',
};

export function phasePrompt(phase: Exclude<OrcPhase, 'idle'>, task: string, checks: string): string {
  return PHASE_PROMPTS[phase].replace('{task}', task).replace('{checks}', checks);
}
