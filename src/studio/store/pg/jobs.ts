import type { JobState } from '../../api/index.js';
import type {
  Adopted,
  ClaimRequest,
  EndEvent,
  Holder,
  Inserted,
  JobEnd,
  JobRow,
  JobStore,
  Lease,
  NewJobRow,
  OrphanVerdict,
} from '../../jobs/job-store.js';
import type { PgDatabase } from './database.js';
import type { PgEventLog } from './events.js';

// The job engine's queue on PostgreSQL (team mode): the JobStore port over the jobs table of
// migration 'jobs', for several studios sharing one database. The policy is SQLite's
// (store/jobs.ts), statement for statement (the claim's and the insert's in PL/pgSQL, in
// migrations.ts); what differs is how a decision stays atomic across processes. Every claim and
// insert takes one transaction-scoped advisory lock, the claim lock: they are serialised, and each
// one's statements see what the one before it committed (the limits count every holder exactly,
// and seqs commit in order, so FIFO per ordering key holds across instances). Each is one call of
// a function (claim_jobs, insert_job) in autocommit, one round trip, so the lock is held while the
// server runs it, never while the next statement of a transaction waits for this studio's busy
// event loop (held so, some 30 ms a job, the lock set the whole team's pace). Every other decision
// that picks who runs a job (a park, a take, a take-over) is one conditional UPDATE on the row,
// which PostgreSQL's row lock settles: the second writer re-reads the row and no longer matches.

const ACTIVE = `state IN ('running', 'waiting')`;
/** A job holding a slot: running, or waiting in place with its lease (a parked job has no lease owner). The text of index jobs_slots. */
const HOLDS_SLOT = `state IN ('running', 'waiting') AND lease_owner IS NOT NULL`;
const PARKED = `state = 'waiting' AND lease_owner IS NULL`;
/** A running row with no owner (written by hand, or by an older schema): an orphan. The text of index jobs_ownerless. */
const OWNERLESS = `state = 'running' AND lease_owner IS NULL`;

/** The arguments of a claim: $1…$6 of CLAIM, $3…$8 of INSERT_JOB. */
const claimValues = (request: ClaimRequest) => [
  request.owner,
  request.leaseUntil,
  new Date(request.now).toISOString(),
  request.now,
  request.overall,
  [...request.kinds],
];
/** The claim arguments of an insert without a claim. */
const NO_CLAIM = [null, null, null, null, null, null];

/** Whether a pass could claim anything ($1 now, $2 kinds): a read, so an idle heartbeat takes no lock. */
const CLAIMABLE = `SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued' AND kind = ANY($2::text[]))
  OR EXISTS (SELECT 1 FROM jobs WHERE ${PARKED} AND next_check_at <= $1 AND kind = ANY($2::text[])) AS claimable`;

/** One claim pass under the claim lock (claim_jobs: the policy is there): $1 owner, $2 lease until, $3 now as ISO, $4 now in ms, $5 overall, $6 kinds. */
const CLAIM = 'SELECT * FROM claim_jobs($1, $2::bigint, $3, $4::bigint, $5::bigint, $6::text[])';

/**
 * The insert of a job under the claim lock, with its inputs and (given a claim) the claim at once or a pass
 * (insert_job). $1 the new row as JSON (its columns are the jobs table's), $2 input hashes, $3…$8 as claimValues
 * (nulls: no claim). Each answer row is a job's columns and what it is: 'existing', 'claimed', or 'inserted' with its place.
 */
const INSERT_JOB = `SELECT what, place, (job).* FROM insert_job(jsonb_populate_record(NULL::jobs, $1::jsonb), $2::text[],
  $3, $4::bigint, $5, $6::bigint, $7::bigint, $8::text[])`;

/** A row of INSERT_JOB: the new job with its place in the queue (1: started), or a job claimed, or the row that has the id. */
type InsertedAnswer = JobRow & { what: 'inserted'; place: number };
type InsertAnswer = InsertedAnswer | (JobRow & { what: 'existing' | 'claimed'; place: null });

/** The job an answer row carries. */
const jobOf = ({ what: _what, place: _place, ...row }: InsertAnswer): JobRow => row;

/** `SELECT pool, lease_owner …` of the holders, the orphans' first read ($1 now): each owner, and how many of its rows expired. */
const OWNERS = `
  SELECT lease_owner AS owner, COUNT(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < $1) AS expired
  FROM jobs WHERE ${HOLDS_SLOT} GROUP BY lease_owner
  UNION ALL SELECT NULL, COUNT(*) FROM jobs WHERE ${OWNERLESS}`;

/**
 * The take-over of an orphan, one statement: its lease becomes ours when it still has the owner it
 * was found with, and one that never reached its upstream is queued again at once. $1 id, $2 the
 * owner it was found with, $3 owner, $4 until, $5 at.
 */
const TAKE_OVER = `
  UPDATE jobs SET
    state = CASE WHEN reached_upstream = 0 THEN 'queued' ELSE state END,
    phase = CASE WHEN reached_upstream = 0 THEN 'queued' ELSE phase END,
    lease_owner = CASE WHEN reached_upstream = 0 THEN NULL ELSE $3 END,
    lease_expires_at = CASE WHEN reached_upstream = 0 THEN NULL ELSE $4::bigint END,
    updated_at = $5
  WHERE id = $1 AND ${ACTIVE} AND lease_owner IS NOT DISTINCT FROM $2
  RETURNING *`;

const FINISH = `
  UPDATE jobs SET state = $2, phase = COALESCE($3, phase), result = $4, error = $5, updated_at = $6, finished_at = $6,
    lease_owner = NULL, lease_expires_at = NULL, next_check_at = NULL
  WHERE id = $1 AND finished_at IS NULL AND ($7::text IS NULL OR state = $7)`;

const finishValues = (id: string, end: JobEnd, at: string) => [
  id,
  end.state satisfies JobState,
  end.phase ?? null,
  end.result === undefined ? null : JSON.stringify(end.result),
  end.error === undefined ? null : JSON.stringify(end.error),
  at,
  end.from ?? null,
];

/** Rows as claimed, in queue order (claim_jobs answers them in none). */
const inQueueOrder = (rows: JobRow[]): JobRow[] => rows.sort((a, b) => b.priority - a.priority || a.seq - b.seq);

/** The JobStore port over one PostgreSQL database, shared by every studio of a team. */
export class PgJobStore implements JobStore {
  constructor(
    private readonly db: PgDatabase,
    /** Where a job's terminal event is written with its end (JobEnd.event); a store without one refuses such an end. */
    private readonly log?: PgEventLog,
  ) {}

  get open(): boolean {
    return !this.db.pool.ending;
  }

  async insert(row: NewJobRow, inputHashes: readonly string[], claim?: ClaimRequest): Promise<Inserted> {
    const answers = await this.db.query<InsertAnswer>(INSERT_JOB, [
      JSON.stringify(row),
      [...inputHashes],
      ...(claim ? claimValues(claim) : NO_CLAIM),
    ]);
    const existing = answers.find((answer) => answer.what === 'existing');
    if (existing) return { existing: jobOf(existing) };
    const inserted = answers.find((answer): answer is InsertedAnswer => answer.what === 'inserted');
    // Neither: the id was taken, and its row swept before insert_job read it. The insert is asked again.
    if (!inserted) throw new Error(`job ${row.id} was inserted and removed at once; submit it again`);
    const claimed = inQueueOrder(answers.filter((answer) => answer.what === 'claimed').map(jobOf));
    return { seq: inserted.seq, position: inserted.place, claimed };
  }

  async claim(request: ClaimRequest): Promise<JobRow[]> {
    const [{ claimable }] = await this.db.query<{ claimable: boolean }>(CLAIMABLE, [request.now, [...request.kinds]]);
    if (!claimable) return [];
    return inQueueOrder(await this.db.query<JobRow>(CLAIM, claimValues(request)));
  }

  async park(id: string, owner: string, next: number, polls: number, at: string): Promise<boolean> {
    return this.changed(
      `UPDATE jobs SET state = 'waiting', next_check_at = $3, polls = $4, lease_owner = NULL, lease_expires_at = NULL, updated_at = $5
       WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND cancel_requested = 0`,
      [id, owner, next, polls, at],
    );
  }

  async take(id: string, owner: string, leaseUntil: number, at: string): Promise<JobRow | undefined> {
    const [row] = await this.db.query<JobRow>(
      `UPDATE jobs SET state = 'running', lease_owner = $2, lease_expires_at = $3, next_check_at = NULL, updated_at = $4
       WHERE id = $1 AND ${PARKED} RETURNING *`,
      [id, owner, leaseUntil, at],
    );
    return row;
  }

  async nextWake(): Promise<number | null> {
    const [row] = await this.db.query<{ at: number | null }>(`SELECT MIN(next_check_at) AS at FROM jobs WHERE ${PARKED}`);
    return row?.at ?? null;
  }

  async find(id: string): Promise<JobRow | undefined> {
    const [row] = await this.db.query<JobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
    return row;
  }

  async attempts(root: string): Promise<JobRow[]> {
    return this.db.query<JobRow>('SELECT * FROM jobs WHERE id = $1 OR retry_of = $1 ORDER BY attempt', [root]);
  }

  async unfinished(): Promise<JobRow[]> {
    return this.db.query<JobRow>('SELECT * FROM jobs WHERE finished_at IS NULL ORDER BY seq');
  }

  async finishedSince(since: string, limit: number): Promise<JobRow[]> {
    return this.db.query<JobRow>(
      'SELECT * FROM jobs WHERE finished_at IS NOT NULL AND finished_at >= $1 ORDER BY finished_at DESC, seq DESC LIMIT $2',
      [since, limit],
    );
  }

  async position(row: Pick<JobRow, 'priority' | 'seq'>): Promise<number> {
    const [{ ahead }] = await this.db.query<{ ahead: number }>(
      `SELECT COUNT(*) AS ahead FROM jobs WHERE state = 'queued' AND (priority > $1 OR (priority = $1 AND seq < $2))`,
      [row.priority, row.seq],
    );
    return ahead + 1;
  }

  async renewLeases(owner: string, until: number): Promise<void> {
    await this.db.query(`UPDATE jobs SET lease_expires_at = $2 WHERE lease_owner = $1 AND ${ACTIVE}`, [owner, until]);
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET lease_expires_at = 0 WHERE lease_owner = $1 AND ${ACTIVE}`, [owner]);
  }

  /**
   * The heartbeat's read, every second: the owners holding slots (and how many of their rows
   * expired) through the small partial indexes; the rows themselves only when some are orphans.
   */
  async orphans(now: number, isDead: (owner: string) => boolean): Promise<JobRow[]> {
    const owners = await this.db.query<{ owner: string | null; expired: number }>(OWNERS, [now]);
    const dead = owners.flatMap(({ owner }) => (owner !== null && isDead(owner) ? [owner] : []));
    if (dead.length === 0 && owners.every((entry) => entry.expired === 0)) return [];
    return this.db.query<JobRow>(
      `SELECT * FROM jobs WHERE (${HOLDS_SLOT} AND (lease_expires_at IS NULL OR lease_expires_at < $1 OR lease_owner = ANY($2::text[])))
         OR (${OWNERLESS})
       ORDER BY seq`,
      [now, dead],
    );
  }

  /**
   * One transaction for every orphan, taken over in arrival order (two adopters lock rows in the
   * same order: one waits for the other, never both for each other). A row another process took
   * over first no longer has the owner it was found with: it is left to that one.
   */
  async adopt(rows: readonly JobRow[], lease: (row: JobRow) => Lease, verdict: (row: JobRow) => OrphanVerdict): Promise<Adopted[]> {
    if (rows.length === 0) return [];
    const ordered = [...rows].sort((a, b) => a.seq - b.seq);
    // The interrupted ones' events are appended in the transaction, and made this studio's own once it has committed.
    const committed: Array<() => void> = [];
    const adopted = await this.db.transaction(async (client) => {
      const adopted: Adopted[] = [];
      for (const row of ordered) {
        const { owner, until, at } = lease(row);
        const [mine] = (await client.query<JobRow>(TAKE_OVER, [row.id, row.lease_owner, owner, until, at])).rows;
        if (!mine) continue;
        if (mine.state === 'queued') {
          adopted.push({ row: mine, action: 'requeued' });
          continue;
        }
        const decided = verdict(mine);
        if (decided.action === 'resumed') {
          adopted.push({ row: mine, action: 'resumed' });
          continue;
        }
        if ((await client.query(FINISH, finishValues(row.id, { state: 'interrupted', error: decided.error }, at))).rowCount !== 1) continue;
        const { event } = decided;
        if (event) {
          const seq = await this.logFor(event).appendInTransaction(client, event.row);
          committed.push(() => event.published(seq));
        }
        adopted.push({ row: mine, action: 'interrupted' });
      }
      return adopted;
    });
    for (const published of committed) published();
    return adopted;
  }

  async holders(now: number): Promise<Holder[]> {
    return this.db.query<Holder>(
      `SELECT lease_owner AS owner, COUNT(*) AS running, MAX(lease_expires_at) AS "leaseExpiresAt"
       FROM jobs WHERE ${HOLDS_SLOT} AND lease_expires_at >= $1 GROUP BY lease_owner ORDER BY lease_owner`,
      [now],
    );
  }

  async setPhase(id: string, phase: string, at: string): Promise<void> {
    await this.db.query('UPDATE jobs SET phase = $2, updated_at = $3 WHERE id = $1 AND finished_at IS NULL', [id, phase, at]);
  }

  async setActivity(id: string, state: 'running' | 'waiting', next: number | null, at: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET state = $2, next_check_at = $3, updated_at = $4 WHERE id = $1 AND ${HOLDS_SLOT}`, [
      id,
      state,
      next,
      at,
    ]);
  }

  async markReachedUpstream(id: string, at: string): Promise<void> {
    await this.db.query('UPDATE jobs SET reached_upstream = 1, updated_at = $2 WHERE id = $1 AND finished_at IS NULL', [id, at]);
  }

  async setOperation(id: string, operation: unknown, operationId: string, state: string | null, at: string): Promise<void> {
    await this.db.query(
      `UPDATE jobs SET operation = $2, upstream_operation_id = $3, upstream_state = $4, updated_at = $5 WHERE id = $1 AND finished_at IS NULL`,
      [id, JSON.stringify(operation), operationId, state, at],
    );
  }

  async setUpstreamState(id: string, state: string | null, at: string): Promise<void> {
    await this.db.query('UPDATE jobs SET upstream_state = $2, updated_at = $3 WHERE id = $1 AND finished_at IS NULL', [id, state, at]);
  }

  async setCancelConfirmed(id: string, confirmed: boolean): Promise<void> {
    await this.db.query('UPDATE jobs SET cancel_confirmed = $2 WHERE id = $1', [id, confirmed ? 1 : 0]);
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    return this.changed('UPDATE jobs SET cancel_requested = 1, updated_at = $2 WHERE id = $1 AND finished_at IS NULL', [id, at]);
  }

  async cancelRequested(owner: string): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(`SELECT id FROM jobs WHERE lease_owner = $1 AND cancel_requested = 1 AND ${ACTIVE}`, [
      owner,
    ]);
    return rows.map((row) => row.id);
  }

  /** With an event: the end and the event in one statement, after this studio's earlier events (PgEventLog.appendWith). */
  async finish(id: string, end: JobEnd, at: string): Promise<boolean> {
    const { event } = end;
    if (!event) return this.changed(FINISH, finishValues(id, end, at));
    const seq = await this.logFor(event).appendWith(FINISH, finishValues(id, end, at), event.row);
    if (seq === undefined) return false;
    event.published(seq);
    return true;
  }

  private logFor(event: EndEvent): PgEventLog {
    if (!this.log) throw new Error(`This job store has no event log to write its event to (${event.row.data.slice(0, 80)}).`);
    return this.log;
  }

  async inputHashes(id: string): Promise<string[]> {
    return (await this.db.query<{ hash: string }>('SELECT hash FROM job_inputs WHERE job_id = $1', [id])).map((row) => row.hash);
  }

  async inputHeld(hash: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM job_inputs WHERE hash = $1 LIMIT 1', [hash])).length > 0;
  }

  /** One statement: the ended jobs and the input files they held go together. */
  async sweepFinished(cutoff: string): Promise<number> {
    const [row] = await this.db.query<{ swept: number }>(
      `WITH swept AS (DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < $1 RETURNING id),
         inputs AS (DELETE FROM job_inputs WHERE job_id IN (SELECT id FROM swept))
       SELECT COUNT(*) AS swept FROM swept`,
      [cutoff],
    );
    return row?.swept ?? 0;
  }

  /** Whether one conditional write changed its row. */
  private async changed(text: string, values: readonly unknown[]): Promise<boolean> {
    await this.db.ready;
    return (await this.db.pool.query(text, values as unknown[])).rowCount === 1;
  }
}
