import type pg from 'pg';
import type { AgentItemState } from '../../api/index.js';
import { SESSION_FIELDS, TURN_FIELDS, type AgentSessionRow, type AgentTurnRow } from '../agent.js';
import type { AgentRepository } from '../repositories.js';
import type { PgDatabase, PgQueryable } from './database.js';

// Agent Mode's sessions and turns in PostgreSQL: the SQLite store's semantics (store/agent.ts).
// A session's change locks its row (SELECT … FOR UPDATE) for the transaction its callback runs in,
// so concurrent changes, from any process, each see the one before.

const SESSION_COLUMNS = ['id', ...SESSION_FIELDS, 'created_at'] as const;

/**
 * `UPDATE table SET a = $1, … WHERE id = $n` for the given fields of an allow-list, `where` and its
 * values after; whether a row changed (false, nothing run, when no field is given).
 */
async function update(
  client: PgQueryable,
  table: 'agent_sessions' | 'agent_turns',
  allowed: readonly string[],
  id: string,
  fields: Record<string, unknown>,
  where: { readonly sql: (next: number) => string; readonly values: readonly unknown[] } = { sql: () => '', values: [] },
): Promise<boolean> {
  const names = Object.keys(fields).filter((name) => allowed.includes(name) && fields[name] !== undefined);
  if (names.length === 0) return false;
  const sets = names.map((name, index) => `${name} = $${index + 1}`).join(', ');
  const result = await client.query(
    `UPDATE ${table} SET ${sets} WHERE id = $${names.length + 1}${where.sql(names.length + 2)} RETURNING 1`,
    [...names.map((name) => fields[name]), id, ...where.values],
  );
  return result.rows.length > 0;
}

const findSessionOn = async (client: PgQueryable, id: string, lock = ''): Promise<AgentSessionRow | undefined> =>
  (await client.query<AgentSessionRow>(`SELECT ${SESSION_COLUMNS.join(', ')} FROM agent_sessions WHERE id = $1${lock}`, [id])).rows[0];

const updateTurnOn = (client: PgQueryable, id: string, fields: Record<string, unknown>, fromStates?: readonly AgentItemState[]) =>
  update(
    client,
    'agent_turns',
    TURN_FIELDS,
    id,
    fields,
    fromStates ? { sql: (next) => ` AND state = ANY($${next}::text[])`, values: [fromStates] } : undefined,
  );

export function pgAgentRepository(database: PgDatabase): AgentRepository {
  const pool: PgQueryable = { query: (text, values) => database.ready.then(() => database.pool.query(text, values as unknown[])) };
  return {
    async insertSession(row) {
      await database.query(
        `INSERT INTO agent_sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map((_column, index) => `$${index + 1}`).join(', ')})`,
        SESSION_COLUMNS.map((column) => row[column]),
      );
    },
    findSession: (id) => findSessionOn(pool, id),
    listSessions: (limit) =>
      database.query<AgentSessionRow>(
        `SELECT ${SESSION_COLUMNS.join(', ')} FROM agent_sessions ORDER BY created_at DESC, id DESC LIMIT $1`,
        [limit],
      ),
    deleteSession: (id) =>
      database.transaction(async (client) => {
        // The session's row first, as changeSession locks it before a turn: the two never wait on each other in a cycle.
        await findSessionOn(client, id, ' FOR UPDATE');
        await client.query('DELETE FROM agent_turns WHERE session_id = $1', [id]);
        return (await client.query('DELETE FROM agent_sessions WHERE id = $1 RETURNING 1', [id])).rows.length > 0;
      }),
    changeSession: (id, change) =>
      database.transaction(async (client: pg.PoolClient) => {
        const row = await findSessionOn(client, id, ' FOR UPDATE');
        if (!row) return undefined;
        const fields = change(row);
        if (!fields) return row;
        await update(client, 'agent_sessions', SESSION_FIELDS, id, fields.session);
        if (fields.turn) await updateTurnOn(client, fields.turn.id, fields.turn.fields);
        return findSessionOn(client, id);
      }),
    insertTurn: async (row) =>
      (
        await database.query(
          `INSERT INTO agent_turns (id, session_id, job_id, state, prompt, command, created_at) VALUES ($1, $2, $3, 'queued', $4, $5, $6)
           ON CONFLICT (id) DO NOTHING RETURNING 1`,
          [row.id, row.session_id, row.job_id, row.prompt, row.command, row.created_at],
        )
      ).length > 0,
    deleteQueuedTurn: async (id, jobId) =>
      (await database.query("DELETE FROM agent_turns WHERE id = $1 AND job_id = $2 AND state = 'queued' RETURNING 1", [id, jobId])).length >
      0,
    findTurn: async (id) => (await database.query<AgentTurnRow>('SELECT * FROM agent_turns WHERE id = $1', [id]))[0],
    listTurns: (sessionId) => database.query<AgentTurnRow>('SELECT * FROM agent_turns WHERE session_id = $1 ORDER BY seq', [sessionId]),
    updateTurn: (id, fields, fromStates) => updateTurnOn(pool, id, fields, fromStates),
    async countTurns(sessionId) {
      const rows = await database.query<{ state: AgentItemState; count: number }>(
        'SELECT state, COUNT(*) AS count FROM agent_turns WHERE session_id = $1 GROUP BY state',
        [sessionId],
      );
      return Object.fromEntries(rows.map((row) => [row.state, row.count]));
    },
  };
}
