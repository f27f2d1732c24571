import type { ErrorCode } from '../../errors.js';
import type { JobPhase } from '../../api/index.js';
import type { LaneEnv } from '../env.js';

// The three steps of the alpha pipeline (spec: Alpha pipeline), in order,
// declared once: the job phase each publishes, its own time budget (a
// variable overrides it) and the code it answers when the budget runs out.
// The image step's budget covers the download of a linked result too.

export interface AlphaPhase {
  readonly jobPhase: Extract<JobPhase, 'searching' | 'planning' | 'rendering'>;
  readonly budgetMs: number;
  readonly env: string;
  readonly timeoutCode: ErrorCode;
}

export const ALPHA_PHASES = {
  search: { jobPhase: 'searching', budgetMs: 60_000, env: 'SVC_ALPHA_SEARCH_TIMEOUT_MS', timeoutCode: 'ALPHA_SEARCH_TIMEOUT' },
  planner: { jobPhase: 'planning', budgetMs: 60_000, env: 'SVC_ALPHA_PLANNER_TIMEOUT_MS', timeoutCode: 'ALPHA_PLANNER_TIMEOUT' },
  image: { jobPhase: 'rendering', budgetMs: 180_000, env: 'SVC_ALPHA_IMAGE_TIMEOUT_MS', timeoutCode: 'ALPHA_IMAGE_TIMEOUT' },
} as const satisfies Record<string, AlphaPhase>;

export type AlphaStep = keyof typeof ALPHA_PHASES;

/** The whole pipeline's budget: the sum of its phases' (the lane's `timeoutMs`). */
export const ALPHA_PIPELINE_BUDGET_MS = Object.values(ALPHA_PHASES).reduce((sum, phase) => sum + phase.budgetMs, 0);

/** A phase's budget in force: its variable when set to a positive number, else the default. */
export function phaseBudgetMs(ctx: LaneEnv, step: AlphaStep): number {
  const phase = ALPHA_PHASES[step];
  const override = Number(ctx.env[phase.env]);
  return Number.isFinite(override) && override > 0 ? override : phase.budgetMs;
}
