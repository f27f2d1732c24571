import type { JobState } from '../api/index.js';
import type { StudioDatabase } from './database.js';

// The jobs table (migration 3): one row per job, kept after it ends until the
// retention sweep. Unfinished rows (finished_at NULL) are what start-up
// recovery looks at. SQL stays here, behind these functions.

export interface JobRow {
  id: string;
  kind: string;
  lane: string | null;
  model: string | null;
  state: JobState;
  phase: string | null;
  upstream_operation_id: string | null;
  upstream_state: string | null;
  request: string;
  result: string | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  finished_at: string | null;
}

export type NewJobRow = Pick<JobRow, 'id' | 'kind' | 'lane' | 'model' | 'request' | 'created_at'>;

function statements(db: StudioDatabase) {
  return {
    // A finished job's id can be used again: its row is replaced. An unfinished one's cannot (the caller checks).
    replaceFinished: db.prepare<[string]>('DELETE FROM jobs WHERE id = ? AND finished_at IS NOT NULL'),
    insert: db.prepare<NewJobRow>(
      `INSERT INTO jobs (id, kind, lane, model, state, request, created_at, updated_at)
       VALUES (@id, @kind, @lane, @model, 'queued', @request, @created_at, @created_at)`,
    ),
    byId: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?'),
    unfinished: db.prepare<[], JobRow>('SELECT * FROM jobs WHERE finished_at IS NULL ORDER BY created_at'),
    // A job starts in its first phase: one write, not two.
    start: db.prepare<{ id: string; phase: string; at: string }>(
      `UPDATE jobs SET state = 'running', phase = @phase, started_at = @at, updated_at = @at WHERE id = @id AND finished_at IS NULL`,
    ),
    phase: db.prepare<{ id: string; phase: string; at: string }>('UPDATE jobs SET phase = @phase, updated_at = @at WHERE id = @id AND finished_at IS NULL'),
    upstream: db.prepare<{ id: string; operation: string; state: string | null; at: string }>(
      'UPDATE jobs SET upstream_operation_id = @operation, upstream_state = @state, updated_at = @at WHERE id = @id AND finished_at IS NULL',
    ),
    finish: db.prepare<{ id: string; state: JobState; phase: string | null; result: string | null; error: string | null; at: string }>(
      `UPDATE jobs SET state = @state, phase = COALESCE(@phase, phase), result = @result, error = @error, updated_at = @at, finished_at = @at
       WHERE id = @id AND finished_at IS NULL`,
    ),
    sweep: db.prepare<[string]>('DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?'),
  };
}

type Statements = ReturnType<typeof statements>;
const cache = new WeakMap<StudioDatabase, Statements>();

function prepared(db: StudioDatabase): Statements {
  let found = cache.get(db);
  if (!found) cache.set(db, (found = statements(db)));
  return found;
}

/** Inserts a queued job, replacing a finished job of the same id in the same transaction. */
export function insertJob(db: StudioDatabase, row: NewJobRow): void {
  const s = prepared(db);
  db.transaction(() => {
    s.replaceFinished.run(row.id);
    s.insert.run(row);
  })();
}

export const findJob = (db: StudioDatabase, id: string): JobRow | undefined => prepared(db).byId.get(id);

export const unfinishedJobs = (db: StudioDatabase): JobRow[] => prepared(db).unfinished.all();

export const markJobRunning = (db: StudioDatabase, id: string, phase: string, at: string): void => void prepared(db).start.run({ id, phase, at });

export const setJobPhase = (db: StudioDatabase, id: string, phase: string, at: string): void => void prepared(db).phase.run({ id, phase, at });

export const setJobUpstream = (db: StudioDatabase, id: string, operation: string, state: string | null, at: string): void =>
  void prepared(db).upstream.run({ id, operation, state, at });

/** Ends a job (in its last phase, when given); false when it had already ended. */
export const finishJob = (db: StudioDatabase, id: string, end: { state: JobState; phase?: string; result?: unknown; error?: unknown }, at: string): boolean =>
  prepared(db).finish.run({
    id,
    state: end.state,
    phase: end.phase ?? null,
    result: end.result === undefined ? null : JSON.stringify(end.result),
    error: end.error === undefined ? null : JSON.stringify(end.error),
    at,
  }).changes === 1;

/** Ends many jobs in one transaction (start-up recovery). */
export function finishJobs(db: StudioDatabase, ends: readonly { id: string; state: JobState; error: unknown }[], at: string): void {
  db.transaction(() => {
    for (const { id, ...end } of ends) finishJob(db, id, end, at);
  })();
}

/** Removes jobs that ended before the cutoff (ISO time); returns how many. */
export const sweepFinishedJobs = (db: StudioDatabase, cutoff: string): number => prepared(db).sweep.run(cutoff).changes;
