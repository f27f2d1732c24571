import type { JobState } from '../api/index.js';
import type { Adopted, ClaimLimits, Inserted, JobEnd, JobRow, JobStore, Lease, NewJobRow, OrphanVerdict } from '../jobs/job-store.js';
import { statementsOf, type StudioDatabase } from './database.js';

// The jobs table (migrations 3, 9 and 10): the durable queue, and the first
// implementation of the engine's JobStore port (SqliteJobStore, at the end).
// One row per job, kept after it ends until the retention sweep. SQL stays
// here; the engine (jobs/) decides, this file only reads and writes. Every
// write that decides who runs a job (a claim, a take-over) is a conditional
// UPDATE inside an IMMEDIATE transaction, so several processes sharing the
// database file never both win the same job.

export type { JobRow, NewJobRow, ClaimLimits };

const ACTIVE = `state IN ('running', 'waiting')`;
const COLUMNS = 'rowid AS seq, *';

function statements(db: StudioDatabase) {
  return {
    insert: db.prepare<NewJobRow>(
      `INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at, priority, ordering_key, fingerprint, attempt, retry_of)
       VALUES (@id, @kind, @lane, @model, 'queued', @request, @created_at, @created_at, @priority, @ordering_key, @fingerprint, @attempt, @retry_of)`,
    ),
    // The fast path: nothing queued and a slot free, so the job is claimed as it is inserted (one write).
    insertClaimed: db.prepare<NewJobRow & { owner: string; until: number; at: string; deadline: number | null; reached: number }>(
      `INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at, priority, ordering_key, fingerprint, attempt, retry_of,
         lease_owner, lease_expires_at, started_at, deadline_at, reached_upstream)
       VALUES (@id, @kind, @lane, @model, 'running', @request, @created_at, @at, @priority, @ordering_key, @fingerprint, @attempt, @retry_of,
         @owner, @until, @at, @deadline, @reached)`,
    ),
    insertInput: db.prepare<[string, string]>('INSERT OR IGNORE INTO job_inputs (job_id, hash) VALUES (?, ?)'),
    byId: db.prepare<[string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`),
    attempts: db.prepare<[string, string], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ? OR retry_of = ? ORDER BY attempt`),
    unfinished: db.prepare<[], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE finished_at IS NULL ORDER BY rowid`),
    finishedSince: db.prepare<[string, number], JobRow>(
      `SELECT ${COLUMNS} FROM jobs WHERE finished_at IS NOT NULL AND finished_at >= ? ORDER BY finished_at DESC, rowid DESC LIMIT ?`,
    ),
    active: db.prepare<[], { lane: string | null; count: number }>(
      `SELECT lane, COUNT(*) AS count FROM jobs WHERE ${ACTIVE} GROUP BY lane`,
    ),
    queued: db.prepare<[number], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE state = 'queued' ORDER BY priority DESC, rowid LIMIT ?`),
    anyQueued: db.prepare<[], { one: number }>(`SELECT 1 AS one FROM jobs WHERE state = 'queued' LIMIT 1`),
    // Strict FIFO per ordering key: a job waits while an older unfinished job of its key exists.
    keyAhead: db.prepare<[string, number], { one: number }>(
      'SELECT 1 AS one FROM jobs WHERE ordering_key = ? AND finished_at IS NULL AND rowid < ? LIMIT 1',
    ),
    position: db.prepare<{ priority: number; seq: number }, { ahead: number }>(
      `SELECT COUNT(*) AS ahead FROM jobs WHERE state = 'queued' AND (priority > @priority OR (priority = @priority AND rowid < @seq))`,
    ),
    claim: db.prepare<{ id: string; owner: string; until: number; at: string; deadline: number | null; reached: number }>(
      `UPDATE jobs SET state = 'running', lease_owner = @owner, lease_expires_at = @until, started_at = COALESCE(started_at, @at),
         deadline_at = COALESCE(deadline_at, @deadline), reached_upstream = MAX(reached_upstream, @reached), updated_at = @at
       WHERE id = @id AND state = 'queued'`,
    ),
    release: db.prepare<[string]>(`UPDATE jobs SET lease_expires_at = 0 WHERE lease_owner = ? AND ${ACTIVE}`),
    renew: db.prepare<{ owner: string; until: number }>(
      `UPDATE jobs SET lease_expires_at = @until WHERE lease_owner = @owner AND ${ACTIVE}`,
    ),
    expired: db.prepare<[number], JobRow>(
      `SELECT ${COLUMNS} FROM jobs WHERE ${ACTIVE} AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY rowid`,
    ),
    ownedActive: db.prepare<[], JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${ACTIVE} ORDER BY rowid`),
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
      `UPDATE jobs SET state = @state, next_check_at = @next, updated_at = @at WHERE id = @id AND ${ACTIVE}`,
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

/**
 * Inserts a queued job and the input files it holds, notes its place in the
 * queue, then runs a claim pass, all in one IMMEDIATE transaction (one commit
 * on the request's path; two processes cannot both insert). Answers its place
 * and what the pass claimed (the job itself when a slot was free), or the row
 * that already has the id (the caller decides: same job, or a conflict).
 */
export function insertJob(db: StudioDatabase, row: NewJobRow, inputHashes: readonly string[], limits?: ClaimLimits): Inserted {
  const s = prepared(db);
  return db
    .transaction(() => {
      const existing = s.byId.get(row.id);
      if (existing) return { existing };
      const claimedAtOnce = limits ? claimOnInsert(s, row, limits) : undefined;
      if (claimedAtOnce) {
        for (const hash of inputHashes) s.insertInput.run(row.id, hash);
        return { seq: claimedAtOnce.seq, position: 1, claimed: [claimedAtOnce] };
      }
      const seq = Number(s.insert.run(row).lastInsertRowid);
      for (const hash of inputHashes) s.insertInput.run(row.id, hash);
      const position = (s.position.get({ priority: row.priority, seq })?.ahead ?? 0) + 1;
      return { seq, position, claimed: limits ? claimPass(s, limits) : [] };
    })
    .immediate();
}

/** The new job as a row, before it is written. */
const rowOf = (row: NewJobRow, seq: number): JobRow => ({
  ...row,
  seq,
  state: 'queued',
  phase: null,
  lease_owner: null,
  lease_expires_at: null,
  deadline_at: null,
  next_check_at: null,
  reached_upstream: 0,
  operation: null,
  upstream_operation_id: null,
  upstream_state: null,
  cancel_requested: 0,
  cancel_confirmed: null,
  result: null,
  error: null,
  started_at: null,
  updated_at: row.created_at,
  finished_at: null,
});

/** With nothing queued and a slot free, the job is inserted claimed (the common case); else undefined. */
function claimOnInsert(s: Statements, row: NewJobRow, limits: ClaimLimits): JobRow | undefined {
  if (s.anyQueued.get()) return undefined;
  const { total, byLane } = activeCounts(s);
  if (total >= limits.overall || (byLane.get(row.lane) ?? 0) >= limits.laneLimit(row.lane)) return undefined;
  if (row.ordering_key !== null && s.keyAhead.get(row.ordering_key, Number.MAX_SAFE_INTEGER)) return undefined;
  const pending = rowOf(row, 0);
  if (!limits.accepts(pending)) return undefined;
  const claim = limits.claim(pending);
  const reached = claim.reachesUpstream ? 1 : 0;
  const seq = Number(
    s.insertClaimed.run({ ...row, owner: claim.owner, until: claim.leaseUntil, at: claim.at, deadline: claim.deadline, reached })
      .lastInsertRowid,
  );
  return {
    ...pending,
    seq,
    state: 'running',
    lease_owner: claim.owner,
    lease_expires_at: claim.leaseUntil,
    started_at: claim.at,
    deadline_at: claim.deadline,
    reached_upstream: reached,
    updated_at: claim.at,
  };
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

/** How many queued rows one pass looks at: enough for every lane to find its next job. */
const CLAIM_SCAN = 500;

/**
 * Claims what may start now, in queue order, within the limits: overall and
 * per lane across every process (they count the active rows of the table),
 * and strict FIFO per ordering key. Answers the rows claimed, as claimed.
 */
export function claimJobs(db: StudioDatabase, limits: ClaimLimits): JobRow[] {
  const s = prepared(db);
  // Nothing queued (the common case once a job ends): no write transaction at all.
  if (!s.anyQueued.get()) return [];
  return db.transaction(() => claimPass(s, limits)).immediate();
}

/** The jobs holding a slot now (running or waiting, in every process), overall and by lane. */
function activeCounts(s: Statements): { total: number; byLane: Map<string | null, number> } {
  const byLane = new Map<string | null, number>();
  let total = 0;
  for (const { lane, count } of s.active.all()) {
    byLane.set(lane, count);
    total += count;
  }
  return { total, byLane };
}

/** One claim pass, inside the caller's IMMEDIATE transaction. */
function claimPass(s: Statements, limits: ClaimLimits): JobRow[] {
  if (!s.anyQueued.get()) return [];
  const active = activeCounts(s);
  const { byLane } = active;
  let { total } = active;
  const claimed: JobRow[] = [];
  if (total >= limits.overall) return claimed;
  for (const row of s.queued.all(CLAIM_SCAN)) {
    if (total >= limits.overall) break;
    const running = byLane.get(row.lane) ?? 0;
    if (running >= limits.laneLimit(row.lane)) continue;
    if (row.ordering_key !== null && s.keyAhead.get(row.ordering_key, row.seq)) continue;
    if (!limits.accepts(row)) continue;
    const claim = limits.claim(row);
    const changed = s.claim.run({
      id: row.id,
      owner: claim.owner,
      until: claim.leaseUntil,
      at: claim.at,
      deadline: claim.deadline,
      reached: claim.reachesUpstream ? 1 : 0,
    }).changes;
    if (changed !== 1) continue;
    byLane.set(row.lane, running + 1);
    total += 1;
    claimed.push({
      ...row,
      state: 'running',
      lease_owner: claim.owner,
      lease_expires_at: claim.leaseUntil,
      started_at: row.started_at ?? claim.at,
      deadline_at: row.deadline_at ?? claim.deadline,
      reached_upstream: Math.max(row.reached_upstream, claim.reachesUpstream ? 1 : 0),
      updated_at: claim.at,
    });
  }
  return claimed;
}

/** A graceful stop: the jobs left unfinished can be taken over at once by the next process. */
export const releaseLeases = (db: StudioDatabase, owner: string): void => void prepared(db).release.run(owner);

export const renewLeases = (db: StudioDatabase, owner: string, until: number): void => void prepared(db).renew.run({ owner, until });

/** Active rows whose lease ran out (their owner stopped heartbeating) or whose owner is known dead. */
export function orphanedJobs(db: StudioDatabase, now: number, ownerIsDead: (owner: string) => boolean): JobRow[] {
  const s = prepared(db);
  const expired = s.expired.all(now);
  const seen = new Set(expired.map((row) => row.id));
  // One liveness check per owner, not per row.
  const verdicts = new Map<string, boolean>();
  const isDead = (owner: string) => verdicts.get(owner) ?? verdicts.set(owner, ownerIsDead(owner)).get(owner) === true;
  const dead = s.ownedActive.all().filter((row) => !seen.has(row.id) && row.lease_owner !== null && isDead(row.lease_owner));
  return [...expired, ...dead];
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
 * Ends a job (in its last phase, when given); false when it had already ended,
 * or (with `from`) was no longer in that state.
 */
export const finishJob = (db: StudioDatabase, id: string, end: JobEnd, at: string): boolean =>
  prepared(db).finish.run({
    id,
    state: end.state,
    phase: end.phase ?? null,
    result: end.result === undefined ? null : JSON.stringify(end.result),
    error: end.error === undefined ? null : JSON.stringify(end.error),
    at,
    from: end.from ?? null,
  }).changes === 1;

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

  async insert(row: NewJobRow, inputHashes: readonly string[], limits?: ClaimLimits): Promise<Inserted> {
    return insertJob(this.db, row, inputHashes, limits);
  }

  async claim(limits: ClaimLimits): Promise<JobRow[]> {
    return claimJobs(this.db, limits);
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

  /** One transaction for every orphan (1,000 at start-up are one commit). */
  async adopt(rows: readonly JobRow[], lease: (row: JobRow) => Lease, verdict: (row: JobRow) => OrphanVerdict): Promise<Adopted[]> {
    const { db } = this;
    return db.transaction(() =>
      rows.flatMap((row): Adopted[] => {
        const { owner, until, at } = lease(row);
        if (!takeOverJob(db, row, owner, until, at)) return [];
        const mine: JobRow = { ...row, lease_owner: owner, lease_expires_at: until };
        if (row.reached_upstream === 0 && requeueJob(db, mine, at)) return [{ row: mine, action: 'requeued' }];
        const decided = verdict(row);
        if (decided.action === 'resumed') return [{ row: mine, action: 'resumed' }];
        return finishJob(db, row.id, { state: 'interrupted', error: decided.error }, at) ? [{ row: mine, action: 'interrupted' }] : [];
      }),
    )();
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
