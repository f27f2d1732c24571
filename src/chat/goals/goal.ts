// A goal: one objective the agent works towards across turns, instance-wide
// (at most one is current), with checkpoints that carry evidence.
import type { AgentId } from '../agents/catalog.js';

export const GOAL_STATUSES = ['active', 'paused', 'done', 'cancelled'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

/** Who recorded a checkpoint: a person (command or HTTP) or the agent (an output marker). */
export type CheckpointSource = 'user' | 'agent';

export interface GoalCheckpoint {
  at: string;
  summary: string;
  nextAction?: string;
  evidence: string[];
  source: CheckpointSource;
}

export interface Goal {
  id: string;
  objective: string;
  status: GoalStatus;
  /** The session its turns run in (the current one when it was set). */
  sessionId: string;
  agent?: AgentId;
  createdAt: string;
  updatedAt: string;
  /** Last change made by a person (set, refine, update, resume): a goal untouched for too long is stale. */
  touchedAt: string;
  /** Earlier wordings, oldest first. */
  refinements: Array<{ at: string; objective: string }>;
  /** The most recent checkpoints, oldest first (bounded). */
  checkpoints: GoalCheckpoint[];
  /** Automatic continuation turns since the last turn a person started. */
  continuations: number;
  /** Set while the two-step pause gate is armed: the agent's first pause reason. */
  pauseGate?: string;
  /** The agent paused again through the gate: no automatic turns until a person acts. */
  pauseConfirmed?: string;
  /** Why automatic continuation stopped (bound reached, stale, pause gate pending); cleared by a person's action. */
  autoStopped?: string;
  /** The reason a person gave when pausing it. */
  pauseReason?: string;
  endedAt?: string;
  endReason?: string;
}

/** What events and the manager carry: the goal without its full history. */
export interface GoalSummary {
  goalId: string;
  objective: string;
  status: GoalStatus;
  sessionId: string;
  continuations: number;
  pauseGate?: string;
  autoStopped?: string;
  latestCheckpoint?: GoalCheckpoint;
  updatedAt: string;
}

export function summarizeGoal(goal: Goal): GoalSummary {
  const summary: GoalSummary = {
    goalId: goal.id,
    objective: goal.objective,
    status: goal.status,
    sessionId: goal.sessionId,
    continuations: goal.continuations,
    updatedAt: goal.updatedAt,
  };
  if (goal.pauseGate !== undefined) summary.pauseGate = goal.pauseGate;
  if (goal.autoStopped !== undefined) summary.autoStopped = goal.autoStopped;
  const latest = goal.checkpoints.at(-1);
  if (latest) summary.latestCheckpoint = latest;
  return summary;
}

/** Active or paused: the goal still wants work (a new one must replace it). */
export const isOpenGoal = (goal: Goal | undefined): goal is Goal => goal?.status === 'active' || goal?.status === 'paused';
