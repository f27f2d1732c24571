import { isRecordedProcessRunning, recordProcessGroup } from '../../common/process/leftover-groups.js';
import type { SqliteDatabase } from '../../common/sqlite.js';

/** One run of the durable queue, as a start-up finds it. */
export interface RunRecord {
  traceId: string;
  sessionId: string;
  messageId: string;
  agent: string | null;
  origin: string;
  /** The prompt (the user message's content). */
  prompt: string;
  /** Set once the run started: it was running when its server stopped. */
  startedAt: string | null;
}

interface Row {
  trace_id: string;
  session_id: string;
  message_id: string;
  agent: string | null;
  origin: string;
  started_at: string | null;
  owner_pid: number | null;
  owner_start_ticks: number | null;
  owner_boot_id: string | null;
  prompt: string | null;
  answered: number;
}

/**
 * The run queue in chat.db: a row per run waiting or running, written with
 * its prompt and removed with its answer (each in one transaction with the
 * message), so a server killed with SIGKILL leaves exactly the runs it had
 * not finished. Each row names the server process holding it (pid and start
 * time, as agent-process-records.ts does) so that a second server started on
 * the same home by mistake leaves a running server's queue alone.
 */
export class RunQueueRecords {
  private readonly owner = recordProcessGroup(process.pid);
  // Prepared once: every message writes here on its way in, at its start and with its answer.
  private readonly statements;

  constructor(private readonly db: SqliteDatabase) {
    const insert = (edge: string) =>
      db.prepare(
        `INSERT INTO run_queue (trace_id, session_id, message_id, agent, origin, position, owner_pid, owner_start_ticks, owner_boot_id)
         VALUES (?, ?, ?, ?, ?, (SELECT ${edge} FROM run_queue WHERE session_id = ?), ?, ?, ?)`,
      );
    this.statements = {
      back: insert('COALESCE(MAX(position), 0) + 1'),
      front: insert('COALESCE(MIN(position), 0) - 1'),
      started: db.prepare('UPDATE run_queue SET started_at = ? WHERE trace_id = ?'),
      remove: db.prepare('DELETE FROM run_queue WHERE trace_id = ?'),
    };
  }

  /** A new run, at the back of its session's queue, or at the front (a steer). */
  add(run: { traceId: string; sessionId: string; messageId: string; agent: string; origin: string }, place: 'back' | 'front'): void {
    this.statements[place].run(
      run.traceId,
      run.sessionId,
      run.messageId,
      run.agent,
      run.origin,
      run.sessionId,
      this.owner?.pgid ?? null,
      this.owner?.startTicks ?? null,
      this.owner?.bootId ?? null,
    );
  }

  markStarted(traceId: string): void {
    this.statements.started.run(new Date().toISOString(), traceId);
  }

  remove(traceId: string): void {
    this.statements.remove.run(traceId);
  }

  /**
   * Start-up: the runs a stopped server left, in each session's order, now
   * held by this one. Rows of a server that still runs are left alone; a run
   * whose answer was saved (the server died between the two writes) is
   * simply forgotten.
   */
  takeOver(): RunRecord[] {
    const rows = this.db
      .prepare(
        `SELECT q.*, m.content AS prompt,
           EXISTS (SELECT 1 FROM messages a WHERE a.role = 'assistant' AND a.trace_id = q.trace_id) AS answered
         FROM run_queue q LEFT JOIN messages m ON m.id = q.message_id
         ORDER BY q.session_id, q.position`,
      )
      .all() as Row[];
    const taken: RunRecord[] = [];
    this.db.transaction(() => {
      for (const row of rows) {
        const owner =
          row.owner_pid === null || row.owner_start_ticks === null || row.owner_boot_id === null
            ? undefined
            : { pgid: row.owner_pid, startTicks: row.owner_start_ticks, bootId: row.owner_boot_id };
        if (owner && isRecordedProcessRunning(owner)) continue;
        if (row.answered || row.prompt === null) {
          this.remove(row.trace_id);
          continue;
        }
        this.db
          .prepare('UPDATE run_queue SET owner_pid = ?, owner_start_ticks = ?, owner_boot_id = ? WHERE trace_id = ?')
          .run(this.owner?.pgid ?? null, this.owner?.startTicks ?? null, this.owner?.bootId ?? null, row.trace_id);
        taken.push({
          traceId: row.trace_id,
          sessionId: row.session_id,
          messageId: row.message_id,
          agent: row.agent,
          origin: row.origin,
          prompt: row.prompt,
          startedAt: row.started_at,
        });
      }
    })();
    return taken;
  }
}
