import type { SqliteDatabase } from '../../common/sqlite.js';
import { CHAT_LIMITS } from '../limits.js';
import type { Goal } from './goal.js';

interface GoalRow {
  data: string;
}

/**
 * Goals in chat.db: one row per goal, the goal as JSON, written whole in one
 * transaction per change (atomic: a crash keeps the previous or the next
 * state, never half of one). At most one row is current; the history keeps
 * the newest `goalHistoryMax` goals.
 */
export class GoalStore {
  constructor(private readonly db: SqliteDatabase) {}

  current(): Goal | undefined {
    const row = this.db.prepare('SELECT data FROM goals WHERE is_current = 1 ORDER BY seq DESC LIMIT 1').get() as GoalRow | undefined;
    return row ? (JSON.parse(row.data) as Goal) : undefined;
  }

  /** Newest first. */
  history(limit: number): Goal[] {
    const rows = this.db.prepare('SELECT data FROM goals ORDER BY seq DESC LIMIT ?').all(limit) as GoalRow[];
    return rows.map((row) => JSON.parse(row.data) as Goal);
  }

  /** Adds a goal as the current one (the previous current goal, already ended, stays in history). */
  insert(goal: Goal, previous?: Goal): void {
    this.db.transaction(() => {
      if (previous) this.write(previous, false);
      this.db.prepare('UPDATE goals SET is_current = 0 WHERE is_current = 1').run();
      this.db
        .prepare('INSERT INTO goals (id, status, is_current, updated_at, data) VALUES (?, ?, 1, ?, ?)')
        .run(goal.id, goal.status, goal.updatedAt, JSON.stringify(bounded(goal)));
      // Bounded history: the oldest goals beyond the limit go.
      this.db
        .prepare('DELETE FROM goals WHERE is_current = 0 AND seq NOT IN (SELECT seq FROM goals ORDER BY seq DESC LIMIT ?)')
        .run(CHAT_LIMITS.goalHistoryMax);
    })();
  }

  /** Saves a changed goal; `current: false` takes it out of being current (clear). */
  save(goal: Goal, current = true): void {
    this.db.transaction(() => this.write(goal, current))();
  }

  private write(goal: Goal, current: boolean): void {
    this.db
      .prepare('UPDATE goals SET status = ?, is_current = ?, updated_at = ?, data = ? WHERE id = ?')
      .run(goal.status, current ? 1 : 0, goal.updatedAt, JSON.stringify(bounded(goal)), goal.id);
  }
}

/** Keeps a goal's own lists bounded (the latest checkpoints and refinements). */
function bounded(goal: Goal): Goal {
  return {
    ...goal,
    checkpoints: goal.checkpoints.slice(-CHAT_LIMITS.goalCheckpointsMax),
    refinements: goal.refinements.slice(-CHAT_LIMITS.goalCheckpointsMax),
  };
}
