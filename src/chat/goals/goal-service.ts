import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { AgentId } from '../agents/catalog.js';
import type { ChatService, RunEnded } from '../chat-service.js';
import { isOpenGoal, summarizeGoal, type Goal, type GoalCheckpoint } from './goal.js';
import type { GoalStore } from './goal-store.js';
import { MARKER_INSTRUCTIONS, scanGoalMarkers } from './markers.js';

export interface GoalSettings {
  /** Automatic continuation turns in a row (since a person's last turn) before they stop. */
  maxContinuations: number;
  /** A goal no person touched for this long is stale: automatic continuation stops. */
  staleMs: number;
}

export interface SetGoalInput {
  objective: string;
  /** Replace an active or paused goal (it ends `cancelled`); without it one is refused. */
  replace?: boolean;
  sessionId?: string;
  agent?: AgentId;
}

export interface CheckpointInput {
  summary: string;
  nextAction?: string;
  evidence?: string[];
}

const now = () => new Date().toISOString();

/**
 * The instance's goal: what a person can do with it (set, refine, update,
 * pause, resume, done, cancel, clear), and its automatic continuation: after
 * a successful turn in the goal's session, with nothing else waiting, the
 * server runs the next turn itself, reading the agent's markers on the way.
 * Every change is saved, then published as `goal_update`.
 */
export class GoalService {
  /** The goal each automatic turn was started for (by trace id), until it ends. */
  private readonly turns = new Map<string, string>();

  constructor(
    private readonly chat: ChatService,
    private readonly store: GoalStore,
    private readonly settings: GoalSettings,
  ) {
    chat.onRunEnded((ended) => this.afterRun(ended));
  }

  current(): Goal | undefined {
    return this.store.current();
  }

  history(limit: number): Goal[] {
    return this.store.history(limit);
  }

  set(input: SetGoalInput): Goal {
    const previous = this.store.current();
    if (isOpenGoal(previous) && !input.replace) {
      throw new ServiceError(
        'GOAL_ACTIVE',
        `Goal ${previous.id} is ${previous.status}; replace it (replace: true, or /goal set --replace) or end it first.`,
        {
          details: { goalId: previous.id, status: previous.status },
        },
      );
    }
    const at = now();
    if (isOpenGoal(previous))
      Object.assign(previous, { status: 'cancelled', endedAt: at, endReason: 'replaced by a new goal', updatedAt: at });
    const goal: Goal = {
      id: randomUUID(),
      objective: input.objective,
      status: 'active',
      sessionId: this.chat.resolveSession(input.sessionId),
      createdAt: at,
      updatedAt: at,
      touchedAt: at,
      refinements: [],
      checkpoints: [],
      continuations: 0,
    };
    if (input.agent) goal.agent = input.agent;
    this.store.insert(goal, previous);
    this.published(goal);
    // A new goal starts working at once when its session is idle (a person just set it: never stale).
    this.continueIfIdle(goal, false, true);
    return goal;
  }

  refine(objective: string): Goal {
    const goal = this.open('refine');
    const at = now();
    goal.refinements.push({ at, objective: goal.objective });
    return this.touched(Object.assign(goal, { objective, updatedAt: at }));
  }

  update(input: CheckpointInput): Goal {
    const goal = this.open('update');
    goal.checkpoints.push(checkpoint(input, 'user'));
    return this.touched(goal);
  }

  pause(reason: string | undefined): Goal {
    const goal = this.require('pause');
    if (goal.status !== 'active') throw conflict(goal, 'pause');
    const at = now();
    goal.status = 'paused';
    if (reason) goal.pauseReason = reason;
    return this.saved(Object.assign(goal, { updatedAt: at }));
  }

  /** A paused goal goes on; so does an active one whose automatic turns stopped (limit, stale, pause gate). */
  resume(): Goal {
    const goal = this.require('resume');
    if (goal.status !== 'paused' && !(goal.status === 'active' && goal.autoStopped !== undefined)) throw conflict(goal, 'resume');
    goal.status = 'active';
    delete goal.pauseReason;
    const resumed = this.touched(goal);
    this.continueIfIdle(resumed, false, true);
    return resumed;
  }

  /** Completes the goal: the latest checkpoint must carry evidence (else `goal_done_rejected` and 409). */
  done(): Goal {
    const goal = this.open('done');
    const latest = goal.checkpoints.at(-1);
    if (!latest || latest.evidence.length === 0) {
      const reason = latest ? 'the latest checkpoint carries no evidence' : 'the goal has no checkpoint with evidence';
      this.chat.events.goalDoneRejected(reason, goal.id, goal.sessionId);
      throw new ServiceError(
        'GOAL_EVIDENCE_REQUIRED',
        `Not done: ${reason}; add one with /goal update <summary> | evidence: <what shows it>.`,
        {
          details: { goalId: goal.id },
        },
      );
    }
    return this.completed(goal, 'completed by a person');
  }

  cancel(): Goal {
    const goal = this.open('cancel');
    const at = now();
    return this.saved(Object.assign(goal, { status: 'cancelled', endedAt: at, endReason: 'cancelled', updatedAt: at }));
  }

  /** No current goal from now on; an open one is cancelled first. The history keeps it. */
  clear(): Goal | undefined {
    const goal = this.store.current();
    if (!goal) return undefined;
    const at = now();
    if (isOpenGoal(goal)) Object.assign(goal, { status: 'cancelled', endedAt: at, endReason: 'cleared', updatedAt: at });
    this.store.save(goal, false);
    this.chat.events.goalUpdate(null);
    return goal;
  }

  /** Reads the markers of a finished turn in the goal's session and decides whether to run the next one. */
  private afterRun(ended: RunEnded): void {
    const turnOf = this.turns.get(ended.traceId);
    this.turns.delete(ended.traceId);
    const goal = this.store.current();
    if (!goal || goal.status !== 'active' || goal.sessionId !== ended.sessionId) return;
    // A turn started for a goal that was replaced meanwhile says nothing about this one.
    if (ended.origin === 'goal' && turnOf !== goal.id) {
      if (ended.done.status === 'ok') this.continueIfIdle(goal);
      return;
    }
    const markers = scanGoalMarkers(ended.text);
    if (markers.done) {
      if (markers.done.evidence) {
        goal.checkpoints.push(checkpoint({ summary: 'The agent reported the goal done.', evidence: [markers.done.evidence] }, 'agent'));
        this.completed(goal, 'completed by the agent');
        return;
      }
      this.chat.events.goalDoneRejected('the done marker carried no evidence', goal.id, goal.sessionId);
    }
    if (ended.origin !== 'goal') goal.continuations = 0;
    if (markers.pause) {
      const { reason } = markers.pause;
      this.chat.events.goalPauseDetected(reason, goal.id, goal.sessionId);
      if (goal.pauseGate !== undefined && ended.origin === 'goal') {
        // Two pauses in a row across a continuation turn: the agent means it.
        goal.pauseConfirmed = reason;
        this.chat.events.goalPauseGatePending(reason, goal.id, goal.sessionId);
        this.continueIfIdle(goal, true);
        return;
      }
      // The first pause only arms the gate; one more turn lets the agent confirm or carry on.
      goal.pauseGate = reason;
    } else if (ended.origin === 'goal') {
      delete goal.pauseGate;
    }
    if (ended.done.status === 'ok') this.continueIfIdle(goal, true);
    else this.saved(goal);
  }

  /**
   * Runs the goal's next turn when its session is idle and automatic continuation is still allowed.
   * `byPerson`: the turn follows a person's own action (set, resume), so staleness cannot apply,
   * however long the clock says has passed since `touchedAt` was written.
   */
  private continueIfIdle(goal: Goal, changed = false, byPerson = false): void {
    const stop = this.stopReason(goal, byPerson);
    if (goal.autoStopped !== stop) {
      if (stop === undefined) delete goal.autoStopped;
      else goal.autoStopped = stop;
      changed = true;
    }
    if (stop !== undefined || !this.chat.isIdle(goal.sessionId) || this.chat.isClosing) {
      if (changed) this.saved(goal);
      return;
    }
    goal.continuations += 1;
    this.saved(goal);
    try {
      const label = `automatic turn ${goal.continuations} of ${this.settings.maxContinuations} for goal: ${goal.objective}`;
      const { accepted } = this.chat.submit({
        prompt: continuationPrompt(goal),
        sessionId: goal.sessionId,
        agent: goal.agent,
        origin: 'goal',
        label,
      });
      this.turns.set(accepted.traceId, goal.id);
    } catch (error) {
      process.stderr.write(`svc-chat: goal ${goal.id} could not continue: ${(error as Error).message}\n`);
    }
  }

  /** Why no automatic turn may run now (worked out each time: a person's turn lifts the count limit). */
  private stopReason(goal: Goal, byPerson = false): string | undefined {
    if (goal.pauseConfirmed !== undefined) return `pause gate pending: ${goal.pauseConfirmed}; /goal resume continues`;
    if (goal.continuations >= this.settings.maxContinuations)
      return `${goal.continuations} automatic turns in a row (the limit); a person's turn or /goal resume continues`;
    if (!byPerson && Date.now() - Date.parse(goal.touchedAt) > this.settings.staleMs)
      return `stale: nobody touched the goal since ${goal.touchedAt}`;
    return undefined;
  }

  private completed(goal: Goal, reason: string): Goal {
    const at = now();
    Object.assign(goal, { status: 'done', endedAt: at, endReason: reason, updatedAt: at });
    delete goal.pauseGate;
    delete goal.autoStopped;
    this.saved(goal);
    this.chat.events.goalDone(goal.id, goal.sessionId);
    return goal;
  }

  /** A person's change: the goal is fresh again and automatic continuation may go on. */
  private touched(goal: Goal): Goal {
    const at = now();
    Object.assign(goal, { updatedAt: at, touchedAt: at, continuations: 0 });
    delete goal.autoStopped;
    delete goal.pauseGate;
    delete goal.pauseConfirmed;
    return this.saved(goal);
  }

  private saved(goal: Goal): Goal {
    goal.updatedAt = now();
    this.store.save(goal);
    this.published(goal);
    return goal;
  }

  private published(goal: Goal): void {
    this.chat.events.goalUpdate(summarizeGoal(goal));
  }

  private require(action: string): Goal {
    const goal = this.store.current();
    if (!goal) throw new ServiceError('GOAL_NOT_FOUND', `There is no current goal to ${action}; set one with /goal set <objective>.`);
    return goal;
  }

  /** The current goal when it is active or paused. */
  private open(action: string): Goal {
    const goal = this.require(action);
    if (!isOpenGoal(goal)) throw conflict(goal, action);
    return goal;
  }
}

function conflict(goal: Goal, action: string): ServiceError {
  return new ServiceError('GOAL_STATE_CONFLICT', `Cannot ${action} goal ${goal.id}: it is ${goal.status}.`, {
    details: { goalId: goal.id, status: goal.status },
  });
}

function checkpoint(input: CheckpointInput, source: GoalCheckpoint['source']): GoalCheckpoint {
  const entry: GoalCheckpoint = {
    at: now(),
    summary: input.summary,
    evidence: (input.evidence ?? []).filter((item) => item.trim() !== ''),
    source,
  };
  if (input.nextAction) entry.nextAction = input.nextAction;
  return entry;
}

/** The prompt of an automatic turn: the objective, where it stands, and the markers. */
export function continuationPrompt(goal: Goal): string {
  const latest = goal.checkpoints.at(-1);
  const lines = [`Continue working on the goal: ${goal.objective}`];
  if (latest) lines.push(`Latest checkpoint: ${latest.summary}${latest.nextAction ? ` Next action: ${latest.nextAction}` : ''}`);
  if (goal.pauseGate !== undefined)
    lines.push(`You asked to pause (${goal.pauseGate}). If you really cannot go on, give the pause marker again; otherwise carry on.`);
  lines.push(MARKER_INSTRUCTIONS);
  return lines.join('\n');
}
