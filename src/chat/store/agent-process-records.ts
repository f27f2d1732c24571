import {
  isRecordedProcessRunning,
  reapProcessGroup,
  recordProcessGroup,
  type ProcessGroupRecord,
  type ReapOutcome,
} from '../../common/process/leftover-groups.js';
import type { SqliteDatabase } from '../../common/sqlite.js';

interface Row {
  trace_id: string;
  pgid: number;
  start_ticks: number;
  boot_id: string;
  owner_pid: number | null;
  owner_start_ticks: number | null;
}

export interface ReapReport {
  traceId: string;
  pgid: number;
  /** `owner-running`: the server that started it still runs (another server on the same home); left alone. */
  outcome: ReapOutcome | 'owner-running';
}

/**
 * The agent process groups running now, in chat.db. A run's group is recorded
 * when its program starts and forgotten when the run ends, so after a server
 * killed with SIGKILL the rows left name the groups it left running; the next
 * start reaps them (see leftover-groups.ts for how a reused id is told apart).
 */
export class AgentProcessRecords {
  /** This server process, as the owner of what it records. */
  private readonly owner = recordProcessGroup(process.pid);

  constructor(private readonly db: SqliteDatabase) {}

  record(traceId: string, pid: number): void {
    const record = recordProcessGroup(pid);
    if (!record) return;
    this.db
      .prepare(
        'INSERT OR REPLACE INTO agent_processes (trace_id, pgid, start_ticks, boot_id, started_at, owner_pid, owner_start_ticks) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        traceId,
        record.pgid,
        record.startTicks,
        record.bootId,
        new Date().toISOString(),
        this.owner?.pgid ?? null,
        this.owner?.startTicks ?? null,
      );
  }

  forget(traceId: string): void {
    this.db.prepare('DELETE FROM agent_processes WHERE trace_id = ?').run(traceId);
  }

  /**
   * Start-up: kills every recorded group that is still ours and forgets it,
   * except the groups of a server that still runs (a second server started on
   * the same home must not kill the first one's agents).
   */
  reapLeftovers(): ReapReport[] {
    const rows = this.db
      .prepare('SELECT trace_id, pgid, start_ticks, boot_id, owner_pid, owner_start_ticks FROM agent_processes')
      .all() as Row[];
    return rows.map((row): ReapReport => {
      const owner =
        row.owner_pid === null || row.owner_start_ticks === null
          ? undefined
          : { pgid: row.owner_pid, startTicks: row.owner_start_ticks, bootId: row.boot_id };
      if (owner && isRecordedProcessRunning(owner)) return { traceId: row.trace_id, pgid: row.pgid, outcome: 'owner-running' };
      const record: ProcessGroupRecord = { pgid: row.pgid, startTicks: row.start_ticks, bootId: row.boot_id };
      const outcome = reapProcessGroup(record);
      this.forget(row.trace_id);
      return { traceId: row.trace_id, pgid: row.pgid, outcome };
    });
  }
}
