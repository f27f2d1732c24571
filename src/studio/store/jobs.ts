import type { JobState } from '../api/index.js';
import type {
  Adopted,
  ClaimRequest,
  Holder,
  Inserted,
  JobEnd,
  JobRow,
  JobStore,
  Lease,
  NewJobRow,
  OrphanVerdict,
} from '../jobs/job-store.js';
import { statementsOf, type StudioDatabase } from './database.js';
import { eventLogOf } from './events.js';

// The jobs table (migrations 3, 9, 10 and 14): the durable queue, and the
// first implementation of the engine's JobStore port (SqliteJobStore, at the
// end). One row per job, kept after it ends until the retention sweep. SQL
// stays here; the engine (jobs/) decides, this file only reads and writes.
// Every write that decides who runs a job (a claim, a take-over) is one
// conditional statement under SQLite's write lock, so several processes
// sharing the database file never both win the same job.

export type { JobRow, NewJobRow, ClaimRequest };

const ACTIVE = `state IN ('running', 'waiting')`;
/** A job holding a slot: running, or waiting in place with its lease (a parked job has no lease owner). The text of index jobs_slots. */
const HOLDS_SLOT = `state IN ('running', 'waiting') AND lease_owner IS NOT NULL`;
const PARKED = `state = 'waiting' AND lease_owner IS NULL`;
/** A running row with no owner: one of a schema before leases (or written by hand), an orphan. The text of index jobs_ownerless. */
const OWNERLESS = `state = 'running' AND lease_owner IS NULL`;
const COLUMNS = 'rowid AS seq, *';

/**
 * The claim, one statement: the candidates (queued, or parked and due; of the holder's kinds; the
 * oldest unfinished job of their ordering key), ranked within their pool and kept within its
 * limit less what holds a slot there, then ranked overall and kept within what is left of the
 * overall limit. The rank is the queue's, priority then arrival, for parked jobs too: a job's
 * next poll goes before the start of one accepted after it, and new work never starves polls.
 */
const CLAIM = `
  WITH holding AS (SELECT pool, COUNT(*) AS n FROM jobs WHERE ${HOLDS_SLOT} GROUP BY pool),
  candidates AS (
    SELECT id, pool, pool_limit, priority, rowid AS seq, ordering_key, kind FROM jobs WHERE state = 'queued'
    UNION ALL
    SELECT id, pool, pool_limit, priority, rowid AS seq, ordering_key, kind FROM jobs WHERE ${PARKED} AND next_check_at <= @now),
  eligible AS (
    SELECT c.id, c.pool, c.pool_limit, c.priority, c.seq FROM candidates c
    WHERE c.kind IN (SELECT value FROM json_each(@kinds))
      AND (c.ordering_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM jobs k WHERE k.ordering_key = c.ordering_key AND k.finished_at IS NULL AND k.rowid < c.seq))),
  ranked AS (SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.pool ORDER BY c.priority DESC, c.seq) AS pool_rank FROM eligible c),
  allowed AS (
    SELECT r.id, ROW_NUMBER() OVER (ORDER BY r.priority DESC, r.seq) AS overall_rank
    FROM ranked r LEFT JOIN holding h ON h.pool = r.pool
    WHERE r.pool_limit IS NULL OR r.pool_rank <= r.pool_limit - COALESCE(h.n, 0))
  UPDATE jobs SET state = 'running', lease_owner = @owner, lease_expires_at = @until, started_at = COALESCE(started_at, @at),
    deadline_at = COALESCE(deadline_at, @now + budget_ms), reached_upstream = MAX(reached_upstream, reaches_at_start),
    next_check_at = NULL, updated_at = @at
  WHERE id IN (SELECT id FROM allowed WHERE overall_rank <= @overall - (SELECT COUNT(*) FROM jobs WHERE ${HOLDS_SLOT}))
  RETURNING ${COLUMNS}`;

/**
 * The claim of a job as it is inserted, when nothing else could be claimed (the common case): the
 * same policy as CLAIM for one row (its kind, the overall and pool limits, its ordering key), so a
 * lone job costs one write. Inserts nothing when the policy says no (it is then inserted queued).
 */
const INSERT_CLAIMED = `
  INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at, priority, ordering_key, fingerprint, attempt, retry_of,
    pool, pool_limit, budget_ms, reaches_at_start, lease_owner, lease_expires_at, started_at, deadline_at, reached_upstream)
  SELECT @id, @kind, @lane, @model, 'running', @request, @created_at, @at, @priority, @ordering_key, @fingerprint, @attempt, @retry_of,
    @pool, @pool_limit, @budget_ms, @reaches_at_start, @owner, @until, @at, @now + @budget_ms, @reaches_at_start
  WHERE @kind IN (SELECT value FROM json_each(@kinds))
    AND (SELECT COUNT(*) FROM jobs WHERE ${HOLDS_SLOT}) < @overall
    AND (@pool_limit IS NULL OR (SELECT COUNT(*) FROM jobs WHERE ${HOLDS_SLOT} AND pool = @pool) < @pool_limit)
    AND (@ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs WHERE ordering_key = @ordering_key AND finished_at IS NULL))
  RETURNING ${COLUMNS}`;

function statements(db: StudioDatabase) {
  return {
    insertClaimed: db.prepare<
      NewJobRow & { owner: string; until: number; at: string; now: number; overall: number; kinds: string },
      JobRow
    >(INSERT_CLAIMED),
    insert: db.prepare<NewJobRow>(
      `INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at, priority, ordering_key, fingerprint, attempt, retry_of,
         pool, pool_limit, budget_ms, reaches_at_start)
       VALUES (@id, @kind, @lane, @model, 'queued', @request, @created_at, @created_at, @priority, @ordering_key, @fingerprint, @attempt, @retry_of,
         @pool, @pool_limit, @budget_ms, @reaches_at_start)`,
    ),
    insertInput: db.prepare<[string, string]>('INSERT OR IGNORE INTO job_inputs (job_id, hash) VALUES (?, ?)'),
    byId: db.prepare<[string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`),
    attempts: db.prepare<[string, string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ? OR retry_of = ? ORDER BY attempt`),
    unfinished: db.prepare<[], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE finished_at IS NULL ORDER BY rowid`),
    finishedSince: db.prepare<[string, number], JobRow>(
      `SELECT ${COLUMNS} FROM jobs WHERE finished_at IS NOT NULL AND finished_at >= ? ORDER BY finished_at DESC, rowid DESC LIMIT ?`,
    ),
    // Whether a pass could claim anything: a read, so an idle heartbeat takes no write lock.
    claimable: db.prepare<[number], { one: number }>(
      `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM jobs WHERE state = 'queued') OR EXISTS (SELECT 1 FROM jobs WHERE ${PARKED} AND next_check_at <= ?)`,
    ),
    claim: db.prepare<{ owner: string; until: number; at: string; now: number; overall: number; kinds: string }, JobRow>(CLAIM),
    position: db.prepare<{ priority: number; seq: number }, { ahead: number }>(
      `SELECT COUNT(*) AS ahead FROM jobs WHERE state = 'queued' AND (priority > @priority OR (priority = @priority AND rowid < @seq))`,
    ),
    park: db.prepare<{ id: string; owner: string; next: number; polls: number; at: string }>(
      `UPDATE jobs SET state = 'waiting', next_check_at = @next, polls = @polls, lease_owner = NULL, lease_expires_at = NULL, updated_at = @at
       WHERE id = @id AND state = 'running' AND lease_owner = @owner AND cancel_requested = 0`,
    ),
    take: db.prepare<{ id: string; owner: string; until: number; at: string }, JobRow>(
      `UPDATE jobs SET state = 'running', lease_owner = @owner, lease_expires_at = @until, next_check_at = NULL, updated_at = @at
       WHERE id = @id AND ${PARKED} RETURNING ${COLUMNS}`,
    ),
    nextWake: db.prepare<[], { at: number | null }>(`SELECT MIN(next_check_at) AS at FROM jobs WHERE ${PARKED}`),
    release: db.prepare<[string]>(`UPDATE jobs SET lease_expires_at = 0 WHERE lease_owner = ? AND ${ACTIVE}`),
    renew: db.prepare<{ owner: string; until: number }>(
      `UPDATE jobs SET lease_expires_at = @until WHERE lease_owner = @owner AND ${ACTIVE}`,
    ),
    // Each half through its partial index (the heartbeat reads it every second, the table holds every finished job).
    expired: db.prepare<[number], JobRow>(
      `SELECT ${COLUMNS} FROM jobs INDEXED BY jobs_slots WHERE ${HOLDS_SLOT} AND (lease_expires_at IS NULL OR lease_expires_at < ?)
       UNION ALL SELECT ${COLUMNS} FROM jobs INDEXED BY jobs_ownerless WHERE ${OWNERLESS}`,
    ),
    // Through jobs_slots (an ORDER BY rowid would make the planner scan the table); orphans are ordered below.
    holding: db.prepare<[], JobRow>(`SELECT ${COLUMNS} FROM jobs INDEXED BY jobs_slots WHERE ${HOLDS_SLOT}`),
    holders: db.prepare<[number], Holder>(
      `SELECT lease_owner AS owner, COUNT(*) AS running, MAX(lease_expires_at) AS leaseExpiresAt
       FROM jobs INDEXED BY jobs_slots WHERE ${HOLDS_SLOT} AND lease_expires_at >= ? GROUP BY lease_owner ORDER BY lease_owner`,
    ),
    takeOver: db.prepare<{ id: string; from: string | null; owner: string; until: number; at: string }>(
      `UPDATE jobs SET lease_owner = @owner, lease_expires_at = @until, updated_at = @at
       WHERE id = @id AND ${ACTIVE} AND lease_owner IS @from`,
    ),
    requeue: db.prepare<{ id: string; from: string | null; at: string }>(
      `UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, phase = 'queued', updated_at = @at
       WHERE id = @id AND ${ACTIVE} AND lease_owner IS @from AND reached_upstream = 0`,
    ),
    phase: db.prepare<{ id: string; phase: string; at: string }>(
      'UPDATE jobs SET phase = @phase, updated_at = @at WHERE id = @id AND finished_at IS NULL',
    ),
    state: db.prepare<{ id: string; state: 'running' | 'waiting'; next: number | null; at: string }>(
      `UPDATE jobs SET state = @state, next_check_at = @next, updated_at = @at WHERE id = @id AND ${HOLDS_SLOT}`,
    ),
    reached: db.prepare<{ id: string; at: string }>(
      'UPDATE jobs SET reached_upstream = 1, updated_at = @at WHERE id = @id AND finished_at IS NULL',
    ),
    operation: db.prepare<{ id: string; operation: string; operation_id: string; state: string | null; at: string }>(
      `UPDATE jobs SET operation = @operation, upstream_operation_id = @operation_id, upstream_state = @state, updated_at = @at WHERE id = @id AND finished_at IS NULL`,
    ),
    upstreamState: db.prepare<{ id: string; state: string | null; at: string }>(
      'UPDATE jobs SET upstream_state = @state, updated_at = @at WHERE id = @id AND finished_at IS NULL',
    ),
    cancelConfirmed: db.prepare<{ id: string; confirmed: number }>('UPDATE jobs SET cancel_confirmed = @confirmed WHERE id = @id'),
    requestCancel: db.prepare<{ id: string; at: string }>(
      `UPDATE jobs SET cancel_requested = 1, updated_at = @at WHERE id = @id AND finished_at IS NULL`,
    ),
    cancelRequested: db.prepare<[string], { id: string }>(
      `SELECT id FROM jobs WHERE lease_owner = ? AND cancel_requested = 1 AND ${ACTIVE}`,
    ),
    finish: db.prepare<{
      id: string;
      state: JobState;
      phase: string | null;
      result: string | null;
      error: string | null;
      at: string;
      from: string | null;
    }>(
      `UPDATE jobs SET state = @state, phase = COALESCE(@phase, phase), result = @result, error = @error, updated_at = @at, finished_at = @at,
         lease_owner = NULL, lease_expires_at = NULL, next_check_at = NULL
       WHERE id = @id AND finished_at IS NULL AND (@from IS NULL OR state = @from)`,
    ),
    sweepInputs: db.prepare<[string]>(
      'DELETE FROM job_inputs WHERE job_id IN (SELECT id FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?)',
    ),
    sweep: db.prepare<[string]>('DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?'),
    inputsOf: db.prepare<[string], { hash: string }>('SELECT hash FROM job_inputs WHERE job_id = ?'),
    inputInUse: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM job_inputs WHERE hash = ? LIMIT 1'),
  };
}

const prepared = statementsOf(statements);
type Statements = ReturnType<typeof statements>;

/** A claim's parameters as the statements name them. */
const claimValues = (request: ClaimRequest) => ({
  owner: request.owner,
  until: request.leaseUntil,
  at: new Date(request.now).toISOString(),
  now: request.now,
  overall: request.overall,
  kinds: JSON.stringify(request.kinds),
});

/** One claim pass (one statement), its rows in queue order; nothing to claim costs one read. Inside the caller's IMMEDIATE transaction. */
function claimPass(s: Statements, request: ClaimRequest): JobRow[] {
  if (!s.claimable.get(request.now)) return [];
  const rows = s.claim.all(claimValues(request));
  // RETURNING follows no order: they start in the queue's.
  return rows.sort((a, b) => b.priority - a.priority || a.seq - b.seq);
}

/**
 * Inserts a queued job and the input files it holds, notes its place in the
 * queue, then (given a claim) a claim pass, all in one IMMEDIATE transaction
 * (one commit on the request's path; two processes cannot both insert).
 * Answers its place and what the pass claimed (the job itself when a slot was
 * free), or the row that already has the id (the caller decides: same job, or a conflict).
 */
export function insertJob(db: StudioDatabase, row: NewJobRow, inputHashes: readonly string[], claim?: ClaimRequest): Inserted {
  const s = prepared(db);
  return db
    .transaction((): Inserted => {
      const existing = s.byId.get(row.id);
      if (existing) return { existing };
      // Nothing else to claim: this job alone is claimed as it is inserted, or queued (then no pass could claim it either).
      const alone = claim !== undefined && !s.claimable.get(claim.now);
      const claimedAtOnce = claim && alone ? s.insertClaimed.get({ ...row, ...claimValues(claim) }) : undefined;
      const seq = claimedAtOnce ? claimedAtOnce.seq : Number(s.insert.run(row).lastInsertRowid);
      for (const hash of inputHashes) s.insertInput.run(row.id, hash);
      const claimed = claimedAtOnce ? [claimedAtOnce] : claim && !alone ? claimPass(s, claim) : [];
      const position = claimed.some((job) => job.id === row.id) ? 1 : (s.position.get({ priority: row.priority, seq })?.ahead ?? 0) + 1;
      return { seq, position, claimed };
    })
    .immediate();
}

export const findJob = (db: StudioDatabase, id: string): JobRow | undefined => prepared(db).byId.get(id);

/** Every attempt of a job, the first one first (`root` is the first attempt's id). */
export const jobAttempts = (db: StudioDatabase, root: string): JobRow[] => prepared(db).attempts.all(root, root);

export const unfinishedJobs = (db: StudioDatabase): JobRow[] => prepared(db).unfinished.all();
/** Jobs that ended at or after `since` (ISO), the newest end first. */
export const jobsFinishedSince = (db: StudioDatabase, since: string, limit: number): JobRow[] =>
  prepared(db).finishedSince.all(since, limit);

/** 1 for the next job to start, 2 for the one after, ... (priority first, then the order they came in). */
export const queuePosition = (db: StudioDatabase, row: Pick<JobRow, 'priority' | 'seq'>): number =>
  (prepared(db).position.get({ priority: row.priority, seq: row.seq })?.ahead ?? 0) + 1;

/** One claim pass, atomic across processes; nothing to claim (the idle heartbeat's case) is one read and no write lock. */
export function claimJobs(db: StudioDatabase, request: ClaimRequest): JobRow[] {
  const s = prepared(db);
  if (!s.claimable.get(request.now)) return [];
  return db.transaction(() => claimPass(s, request)).immediate();
}

/** A graceful stop: the jobs left unfinished can be taken over at once by the next process. */
export const releaseLeases = (db: StudioDatabase, owner: string): void => void prepared(db).release.run(owner);

export const renewLeases = (db: StudioDatabase, owner: string, until: number): void => void prepared(db).renew.run({ owner, until });

/** Rows holding a slot whose lease ran out (their owner stopped heartbeating) or whose owner is known dead; parked rows are no one's. */
export function orphanedJobs(db: StudioDatabase, now: number, ownerIsDead: (owner: string) => boolean): JobRow[] {
  const s = prepared(db);
  const expired = s.expired.all(now);
  const seen = new Set(expired.map((row) => row.id));
  // One liveness check per owner, not per row.
  const verdicts = new Map<string, boolean>();
  const isDead = (owner: string) => verdicts.get(owner) ?? verdicts.set(owner, ownerIsDead(owner)).get(owner) === true;
  const dead = s.holding.all().filter((row) => !seen.has(row.id) && row.lease_owner !== null && isDead(row.lease_owner));
  return [...expired, ...dead].sort((a, b) => a.seq - b.seq);
}

/** Takes an orphaned active job over (to resume it); false when another process did first. */
export const takeOverJob = (db: StudioDatabase, row: JobRow, owner: string, until: number, at: string): boolean =>
  prepared(db).takeOver.run({ id: row.id, from: row.lease_owner, owner, until, at }).changes === 1;

/** Puts an orphaned job that never reached its upstream back in the queue; false when it did, or another process acted first. */
export const requeueJob = (db: StudioDatabase, row: JobRow, at: string): boolean =>
  prepared(db).requeue.run({ id: row.id, from: row.lease_owner, at }).changes === 1;

export const setJobPhase = (db: StudioDatabase, id: string, phase: string, at: string): void =>
  void prepared(db).phase.run({ id, phase, at });

/** running (a step is under way) or waiting (until `next`, the next status call). */
export const setJobActivity = (db: StudioDatabase, id: string, state: 'running' | 'waiting', next: number | null, at: string): void =>
  void prepared(db).state.run({ id, state, next, at });

/** The checkpoint: the job's first billable upstream call is about to be sent. */
export const markReachedUpstream = (db: StudioDatabase, id: string, at: string): void => void prepared(db).reached.run({ id, at });

export const setJobOperation = (
  db: StudioDatabase,
  id: string,
  operation: unknown,
  operationId: string,
  state: string | null,
  at: string,
): void => void prepared(db).operation.run({ id, operation: JSON.stringify(operation), operation_id: operationId, state, at });

export const setUpstreamState = (db: StudioDatabase, id: string, state: string | null, at: string): void =>
  void prepared(db).upstreamState.run({ id, state, at });

export const setCancelConfirmed = (db: StudioDatabase, id: string, confirmed: boolean): void =>
  void prepared(db).cancelConfirmed.run({ id, confirmed: confirmed ? 1 : 0 });

/** Asks the process that runs a job to cancel it (it looks at each heartbeat). */
export const requestJobCancel = (db: StudioDatabase, id: string, at: string): boolean =>
  prepared(db).requestCancel.run({ id, at }).changes === 1;

export const cancelRequestedJobs = (db: StudioDatabase, owner: string): string[] =>
  prepared(db)
    .cancelRequested.all(owner)
    .map((row) => row.id);

/**
 * Ends a job (in its last phase, when given) and appends its terminal event, in one transaction;
 * false when it had already ended, or (with `from`) was no longer in that state. Answers the
 * event's seq for the caller to call `published` with once committed (this may be inside a larger transaction).
 */
function endJob(db: StudioDatabase, id: string, end: JobEnd, at: string): { seq?: number } | undefined {
  return db.transaction(() => {
    const ended =
      prepared(db).finish.run({
        id,
        state: end.state,
        phase: end.phase ?? null,
        result: end.result === undefined ? null : JSON.stringify(end.result),
        error: end.error === undefined ? null : JSON.stringify(end.error),
        at,
        from: end.from ?? null,
      }).changes === 1;
    if (!ended) return undefined;
    return end.event ? { seq: eventLogOf(db).appendInTransaction(end.event.row) } : {};
  })();
}

/** Ends a job with its terminal event (see endJob), the event sent live as it commits; false when it had ended or left `from`. */
export function finishJob(db: StudioDatabase, id: string, end: JobEnd, at: string): boolean {
  const ended = endJob(db, id, end, at);
  if (ended?.seq !== undefined) end.event?.published(ended.seq);
  return ended !== undefined;
}

export const jobInputHashes = (db: StudioDatabase, id: string): string[] =>
  prepared(db)
    .inputsOf.all(id)
    .map((row) => row.hash);

/** Removes jobs that ended before the cutoff (ISO time), and which input files they held; answers how many. */
export function sweepFinishedJobs(db: StudioDatabase, cutoff: string): number {
  const s = prepared(db);
  return db.transaction(() => {
    s.sweepInputs.run(cutoff);
    return s.sweep.run(cutoff).changes;
  })();
}

/** Whether any job (of any state) holds the input file of this hash. */
export const inputHeld = (db: StudioDatabase, hash: string): boolean => Boolean(prepared(db).inputInUse.get(hash));

/** The JobStore port over one SQLite database (better-sqlite3 is synchronous: each answer is already settled). */
export class SqliteJobStore implements JobStore {
  constructor(private readonly db: StudioDatabase) {}

  get open(): boolean {
    return this.db.open;
  }

  async insert(row: NewJobRow, inputHashes: readonly string[], claim?: ClaimRequest): Promise<Inserted> {
    return insertJob(this.db, row, inputHashes, claim);
  }

  async claim(request: ClaimRequest): Promise<JobRow[]> {
    return claimJobs(this.db, request);
  }

  async park(id: string, owner: string, next: number, polls: number, at: string): Promise<boolean> {
    return prepared(this.db).park.run({ id, owner, next, polls, at }).changes === 1;
  }

  async take(id: string, owner: string, leaseUntil: number, at: string): Promise<JobRow | undefined> {
    return prepared(this.db).take.get({ id, owner, until: leaseUntil, at });
  }

  async nextWake(): Promise<number | null> {
    return prepared(this.db).nextWake.get()?.at ?? null;
  }

  async find(id: string): Promise<JobRow | undefined> {
    return findJob(this.db, id);
  }

  async attempts(root: string): Promise<JobRow[]> {
    return jobAttempts(this.db, root);
  }

  async unfinished(): Promise<JobRow[]> {
    return unfinishedJobs(this.db);
  }

  async finishedSince(since: string, limit: number): Promise<JobRow[]> {
    return jobsFinishedSince(this.db, since, limit);
  }

  async position(row: Pick<JobRow, 'priority' | 'seq'>): Promise<number> {
    return queuePosition(this.db, row);
  }

  async renewLeases(owner: string, until: number): Promise<void> {
    renewLeases(this.db, owner, until);
  }

  async releaseLeases(owner: string): Promise<void> {
    releaseLeases(this.db, owner);
  }

  async orphans(now: number, isDead: (owner: string) => boolean): Promise<JobRow[]> {
    return orphanedJobs(this.db, now, isDead);
  }

  /** One transaction for every orphan (1,000 at start-up are one commit); the interrupted ones' events go live once it has committed. */
  async adopt(rows: readonly JobRow[], lease: (row: JobRow) => Lease, verdict: (row: JobRow) => OrphanVerdict): Promise<Adopted[]> {
    const { db } = this;
    const committed: Array<() => void> = [];
    const adopted = db.transaction(() =>
      rows.flatMap((row): Adopted[] => {
        const { owner, until, at } = lease(row);
        if (!takeOverJob(db, row, owner, until, at)) return [];
        const mine: JobRow = { ...row, lease_owner: owner, lease_expires_at: until };
        if (row.reached_upstream === 0 && requeueJob(db, mine, at)) return [{ row: mine, action: 'requeued' }];
        const decided = verdict(row);
        if (decided.action === 'resumed') return [{ row: mine, action: 'resumed' }];
        const { event } = decided;
        const ended = endJob(db, row.id, { state: 'interrupted', error: decided.error, event }, at);
        if (!ended) return [];
        const { seq } = ended;
        if (event && seq !== undefined) committed.push(() => event.published(seq));
        return [{ row: mine, action: 'interrupted' }];
      }),
    )();
    for (const published of committed) published();
    return adopted;
  }

  async holders(now: number): Promise<Holder[]> {
    return prepared(this.db).holders.all(now);
  }

  async setPhase(id: string, phase: string, at: string): Promise<void> {
    setJobPhase(this.db, id, phase, at);
  }

  async setActivity(id: string, state: 'running' | 'waiting', next: number | null, at: string): Promise<void> {
    setJobActivity(this.db, id, state, next, at);
  }

  async markReachedUpstream(id: string, at: string): Promise<void> {
    markReachedUpstream(this.db, id, at);
  }

  async setOperation(id: string, operation: unknown, operationId: string, state: string | null, at: string): Promise<void> {
    setJobOperation(this.db, id, operation, operationId, state, at);
  }

  async setUpstreamState(id: string, state: string | null, at: string): Promise<void> {
    setUpstreamState(this.db, id, state, at);
  }

  async setCancelConfirmed(id: string, confirmed: boolean): Promise<void> {
    setCancelConfirmed(this.db, id, confirmed);
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    return requestJobCancel(this.db, id, at);
  }

  async cancelRequested(owner: string): Promise<string[]> {
    return cancelRequestedJobs(this.db, owner);
  }

  async finish(id: string, end: JobEnd, at: string): Promise<boolean> {
    return finishJob(this.db, id, end, at);
  }

  async inputHashes(id: string): Promise<string[]> {
    return jobInputHashes(this.db, id);
  }

  async inputHeld(hash: string): Promise<boolean> {
    return inputHeld(this.db, hash);
  }

  async sweepFinished(cutoff: string): Promise<number> {
    return sweepFinishedJobs(this.db, cutoff);
  }
}
