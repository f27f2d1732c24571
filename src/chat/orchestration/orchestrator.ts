import { ServiceError } from '../errors.js';
import type { SqliteDatabase } from '../../common/sqlite.js';
import type { AgentId } from '../agents/catalog.js';
import type { ChatService, RunEnded } from '../chat-service.js';
import { CHAT_LIMITS } from '../limits.js';
import { IDLE_STATE, NEXT_PHASE, phasePrompt, type OrcPhase, type OrcState } from './phases.js';

export interface StartInput {
  task: string;
  sessionId?: string;
  agent?: AgentId;
}

export interface OrcTransition {
  at: string;
  from: OrcPhase;
  to: OrcPhase;
  status: OrcState['status'];
}

/**
 * PABCD orchestration: idle → plan → audit → build → check → done, entered by
 * command and moved forward one phase at a time (start from idle or done,
 * next, reset to idle from anywhere). Each phase sends its prompt to the agent
 * as a turn; the state is kept in chat.db (one row, written whole), so a
 * restart keeps the phase (a turn the restart cut short ends `interrupted`).
 * Every transition and every phase turn's end publishes `orc_state`.
 */
export class Orchestrator {
  private state: OrcState;
  private agent: AgentId | undefined;

  constructor(
    private readonly chat: ChatService,
    private readonly db: SqliteDatabase,
    private readonly checks: string,
  ) {
    const row = db.prepare('SELECT data FROM orchestration WHERE id = 1').get() as { data: string } | undefined;
    this.state = row ? (JSON.parse(row.data) as OrcState) : IDLE_STATE();
    // A phase turn that was running when the server stopped did not finish; one that was still
    // waiting runs now (the chat service took its queue over), so its end is still recorded.
    const waiting = this.state.traceId !== undefined && chat.liveTraceIds().has(this.state.traceId);
    if (this.state.status === 'running' && !waiting)
      this.state = { ...this.state, status: 'interrupted', updatedAt: new Date().toISOString() };
    this.persist();
    chat.onRunEnded((ended) => this.afterRun(ended));
  }

  get current(): OrcState {
    return { ...this.state };
  }

  /** The latest transitions, newest first. */
  transitions(limit: number): OrcTransition[] {
    const rows = this.db.prepare('SELECT data FROM orc_transitions ORDER BY seq DESC LIMIT ?').all(limit) as Array<{ data: string }>;
    return rows.map((row) => JSON.parse(row.data) as OrcTransition);
  }

  start(input: StartInput): OrcState {
    if (this.state.phase !== 'idle' && this.state.phase !== 'done') {
      throw new ServiceError(
        'ORC_TRANSITION_INVALID',
        `The orchestration is in ${this.state.phase}; /orc reset first to start another task.`,
        { details: this.details() },
      );
    }
    const sessionId = this.chat.resolveSession(input.sessionId);
    this.agent = input.agent;
    return this.enter('plan', { task: input.task, sessionId });
  }

  /** Moves one phase forward; `to`, when given, must be that phase. */
  next(to?: OrcPhase): OrcState {
    const next = NEXT_PHASE[this.state.phase];
    if (this.state.status === 'running') {
      throw new ServiceError(
        'ORC_PHASE_RUNNING',
        `Phase ${this.state.phase} is still running (${this.state.traceId}); wait for it or /cancel it.`,
        { details: this.details() },
      );
    }
    if (!next || (to !== undefined && to !== next)) {
      const allowed = next
        ? `only ${next}`
        : this.state.phase === 'idle'
          ? 'none: /orc start <task> first'
          : 'none: /orc reset or /orc start <task>';
      throw new ServiceError('ORC_TRANSITION_INVALID', `From ${this.state.phase} the orchestration can move to ${allowed}.`, {
        details: { ...this.details(), requested: to ?? null },
      });
    }
    return this.enter(next, { task: this.state.task ?? '', sessionId: this.state.sessionId ?? this.chat.resolveSession(undefined) });
  }

  /** Back to idle from anywhere (a running phase turn goes on; its end no longer moves the state). */
  reset(): OrcState {
    const from = this.state.phase;
    this.state = IDLE_STATE();
    this.record(from);
    return this.current;
  }

  private enter(phase: Exclude<OrcPhase, 'idle'>, where: { task: string; sessionId: string }): OrcState {
    const from = this.state.phase;
    const prompt = phasePrompt(phase, where.task, this.checks);
    const accepted = this.chat.submit({
      prompt,
      sessionId: where.sessionId,
      agent: this.agent,
      origin: 'orc',
      label: `PABCD ${phase} phase: ${where.task}`,
    });
    this.state = {
      phase,
      status: 'running',
      task: where.task,
      sessionId: where.sessionId,
      traceId: accepted.accepted.traceId,
      updatedAt: new Date().toISOString(),
    };
    this.record(from);
    return this.current;
  }

  private afterRun(ended: RunEnded): void {
    if (ended.origin !== 'orc' || ended.traceId !== this.state.traceId || this.state.status !== 'running') return;
    this.state = { ...this.state, status: ended.done.status, updatedAt: new Date().toISOString() };
    this.record(this.state.phase);
  }

  /** Saves the state, logs the transition (bounded) and publishes `orc_state`. */
  private record(from: OrcPhase): void {
    this.persist();
    const transition: OrcTransition = { at: this.state.updatedAt, from, to: this.state.phase, status: this.state.status };
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO orc_transitions (at, data) VALUES (?, ?)').run(transition.at, JSON.stringify(transition));
      this.db
        .prepare('DELETE FROM orc_transitions WHERE seq NOT IN (SELECT seq FROM orc_transitions ORDER BY seq DESC LIMIT ?)')
        .run(CHAT_LIMITS.orcTransitionsMax);
    })();
    this.chat.events.orcState(this.current);
  }

  private persist(): void {
    this.db
      .prepare('INSERT INTO orchestration (id, data) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data')
      .run(JSON.stringify(this.state));
  }

  private details(): Record<string, unknown> {
    return { phase: this.state.phase, status: this.state.status };
  }
}
