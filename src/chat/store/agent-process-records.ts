import { reapProcessGroup, recordProcessGroup, type ProcessGroupRecord, type ReapOutcome } from '../../common/process/leftover-groups.js';
import type { SqliteDatabase } from '../../common/sqlite.js';

interface Row {
  trace_id: string;
  pgid: number;
  start_ticks: number;
  boot_id: string;
}

export interface ReapReport {
  traceId: string;
  pgid: number;
  outcome: ReapOutcome;
}

/**
 * The agent process groups running now, in chat.db. A run's group is recorded
 * when its program starts and forgotten when the run ends, so after a server
 * killed with SIGKILL the rows left name the groups it left running; the next
 * start reaps them (see leftover-groups.ts for how a reused id is told apart).
 */
export class AgentProcessRecords {
  constructor(private readonly db: SqliteDatabase) {}

  record(traceId: string, pid: number): void {
    const record = recordProcessGroup(pid);
    if (!record) return;
    this.db
      .prepare('INSERT OR REPLACE INTO agent_processes (trace_id, pgid, start_ticks, boot_id, started_at) VALUES (?, ?, ?, ?, ?)')
      .run(traceId, record.pgid, record.startTicks, record.bootId, new Date().toISOString());
  }

  forget(traceId: string): void {
    this.db.prepare('DELETE FROM agent_processes WHERE trace_id = ?').run(traceId);
  }

  /** Start-up: kills every recorded group that is still ours, and forgets them all. */
  reapLeftovers(): ReapReport[] {
    const rows = this.db.prepare('SELECT trace_id, pgid, start_ticks, boot_id FROM agent_processes').all() as Row[];
    const reports = rows.map((row): ReapReport => {
      const record: ProcessGroupRecord = { pgid: row.pgid, startTicks: row.start_ticks, bootId: row.boot_id };
      return { traceId: row.trace_id, pgid: row.pgid, outcome: reapProcessGroup(record) };
    });
    this.db.prepare('DELETE FROM agent_processes').run();
    return reports;
  }
}
