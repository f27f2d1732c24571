import type { Statement } from 'better-sqlite3';
import type { AgentItemState } from '../api/index.js';
import { statementsOf, type StudioDatabase } from './database.js';
import type { AgentSessionChange } from './repositories.js';

// The Agent Mode tables (migration 12): sessions and their turns. SQL stays
// here; agent/ reads and writes through these functions. JSON columns are
// written by agent/ only.

export interface AgentSessionRow {
  id: string;
  title: string;
  /** JSON: the session's image settings. */
  settings: string;
  web_search: number;
  style_lock: string | null;
  subject_lock: string | null;
  current_image: string | null;
  /** JSON array: the current images before this one, newest last (what /undo goes back to). */
  previous_images: string;
  /** JSON array: every image of the session, oldest first. */
  images: string;
  created_at: string;
  updated_at: string;
}

export interface AgentTurnRow {
  seq: number;
  id: string;
  session_id: string;
  job_id: string;
  attempt: number;
  state: AgentItemState;
  prompt: string;
  command: string | null;
  plan: string | null;
  final_prompt: string | null;
  provider: string | null;
  model: string | null;
  input_image: string | null;
  /** JSON array of file names. */
  images: string;
  timings: string | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type NewAgentTurnRow = Pick<AgentTurnRow, 'id' | 'session_id' | 'job_id' | 'prompt' | 'command' | 'created_at'>;

/** The fields a turn's progress writes (each optional). */
export type AgentTurnUpdate = Partial<Omit<AgentTurnRow, 'seq' | 'id' | 'session_id' | 'created_at'>>;
export type AgentSessionUpdate = Partial<Omit<AgentSessionRow, 'id' | 'created_at'>>;

/** The columns a turn's write may set (names never come from a request); the PostgreSQL store writes the same. */
export const TURN_FIELDS = [
  'job_id',
  'attempt',
  'state',
  'prompt',
  'command',
  'plan',
  'final_prompt',
  'provider',
  'model',
  'input_image',
  'images',
  'timings',
  'error',
  'started_at',
  'finished_at',
] as const;
/** The columns a session's write may set. */
export const SESSION_FIELDS = [
  'title',
  'settings',
  'web_search',
  'style_lock',
  'subject_lock',
  'current_image',
  'previous_images',
  'images',
  'updated_at',
] as const;

function statements(db: StudioDatabase) {
  return {
    insertSession: db.prepare<AgentSessionRow>(
      `INSERT INTO agent_sessions (id, title, settings, web_search, style_lock, subject_lock, current_image, previous_images, images, created_at, updated_at)
       VALUES (@id, @title, @settings, @web_search, @style_lock, @subject_lock, @current_image, @previous_images, @images, @created_at, @updated_at)`,
    ),
    session: db.prepare<[string], AgentSessionRow>('SELECT * FROM agent_sessions WHERE id = ?'),
    sessions: db.prepare<[number], AgentSessionRow>('SELECT * FROM agent_sessions ORDER BY created_at DESC, id DESC LIMIT ?'),
    deleteSession: db.prepare<[string]>('DELETE FROM agent_sessions WHERE id = ?'),
    deleteTurns: db.prepare<[string]>('DELETE FROM agent_turns WHERE session_id = ?'),
    insertTurn: db.prepare<NewAgentTurnRow>(
      `INSERT OR IGNORE INTO agent_turns (id, session_id, job_id, state, prompt, command, created_at) VALUES (@id, @session_id, @job_id, 'queued', @prompt, @command, @created_at)`,
    ),
    turn: db.prepare<[string], AgentTurnRow>('SELECT * FROM agent_turns WHERE id = ?'),
    deleteQueuedTurn: db.prepare<[string, string]>("DELETE FROM agent_turns WHERE id = ? AND job_id = ? AND state = 'queued'"),
    turns: db.prepare<[string], AgentTurnRow>('SELECT * FROM agent_turns WHERE session_id = ? ORDER BY seq'),
    counts: db.prepare<[string], { state: AgentItemState; count: number }>(
      'SELECT state, COUNT(*) AS count FROM agent_turns WHERE session_id = ? GROUP BY state',
    ),
  };
}

const prepared = statementsOf(statements);
/** The UPDATEs `update` builds, prepared once per database and field list (a turn writes the same few shapes). */
const updates = statementsOf(() => new Map<string, Statement>());

/** `UPDATE table SET a = @a, ...` for the given fields of an allow-list (names never come from a request). */
function update(
  db: StudioDatabase,
  table: 'agent_sessions' | 'agent_turns',
  allowed: readonly string[],
  id: string,
  fields: Record<string, unknown>,
  where = '',
): boolean {
  const names = Object.keys(fields).filter((name) => allowed.includes(name) && fields[name] !== undefined);
  if (names.length === 0) return false;
  const sql = `UPDATE ${table} SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id${where}`;
  const cache = updates(db);
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement.run({ ...Object.fromEntries(names.map((name) => [name, fields[name]])), id }).changes === 1;
}

export const insertAgentSession = (db: StudioDatabase, row: AgentSessionRow): void => void prepared(db).insertSession.run(row);
export const findAgentSession = (db: StudioDatabase, id: string): AgentSessionRow | undefined => prepared(db).session.get(id);
export const listAgentSessions = (db: StudioDatabase, limit: number): AgentSessionRow[] => prepared(db).sessions.all(limit);

/** Removes a session and its turns (the images stay in history). */
export function deleteAgentSession(db: StudioDatabase, id: string): boolean {
  const s = prepared(db);
  return db.transaction(() => {
    s.deleteTurns.run(id);
    return s.deleteSession.run(id).changes === 1;
  })();
}

/**
 * A session's change made from what it is now, in one immediate transaction
 * (no other writer comes between the read and the write): `change` answers the
 * fields to write (and a turn's, written with them), or undefined to leave it.
 */
export function changeAgentSession(
  db: StudioDatabase,
  id: string,
  change: (row: AgentSessionRow) => AgentSessionChange | undefined,
): AgentSessionRow | undefined {
  const s = prepared(db);
  return db
    .transaction(() => {
      const row = s.session.get(id);
      if (!row) return undefined;
      const fields = change(row);
      if (!fields) return row;
      update(db, 'agent_sessions', SESSION_FIELDS, id, fields.session);
      if (fields.turn) updateAgentTurn(db, fields.turn.id, fields.turn.fields);
      return s.session.get(id);
    })
    .immediate();
}

/** A new turn (queued); nothing when a turn with that id exists (the same request again). */
export const insertAgentTurn = (db: StudioDatabase, row: NewAgentTurnRow): boolean => prepared(db).insertTurn.run(row).changes === 1;
/** Removes a turn still queued on the job `jobId` (an item whose job was never accepted). */
export const deleteQueuedAgentTurn = (db: StudioDatabase, id: string, jobId: string): boolean =>
  prepared(db).deleteQueuedTurn.run(id, jobId).changes === 1;
export const findAgentTurn = (db: StudioDatabase, id: string): AgentTurnRow | undefined => prepared(db).turn.get(id);
export const listAgentTurns = (db: StudioDatabase, sessionId: string): AgentTurnRow[] => prepared(db).turns.all(sessionId);

/** Writes a turn's fields; with `fromStates`, only while it is in one of them. */
export function updateAgentTurn(db: StudioDatabase, id: string, fields: AgentTurnUpdate, fromStates?: readonly AgentItemState[]): boolean {
  const where = fromStates ? ` AND state IN (${fromStates.map((state) => `'${state}'`).join(', ')})` : '';
  return update(db, 'agent_turns', TURN_FIELDS, id, fields, where);
}

export function countAgentTurns(db: StudioDatabase, sessionId: string): Partial<Record<AgentItemState, number>> {
  return Object.fromEntries(
    prepared(db)
      .counts.all(sessionId)
      .map((row) => [row.state, row.count]),
  );
}
