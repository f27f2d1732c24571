import type { AssetFilter, AssetRow, SessionGroupRow } from '../assets.js';
import type { AssetRepository } from '../repositories.js';
import type { PgDatabase } from './database.js';
import { searchColumns, searchQuery } from './search.js';

// History's rows in PostgreSQL (the "repositories" migration): the SQLite store's semantics
// (store/assets.ts) over the same indexes. Search reads the rows' keys (store/pg/search.ts); title
// groups read asset_groups, kept by a trigger, joined with sessions for the titles they have now.

/** The row's own columns (not its search keys), qualified: the sessions table, joined for titles, has id and times too. */
const COLUMNS = [
  'id',
  'filename',
  'thumbnail',
  'format',
  'width',
  'height',
  'bytes',
  'created_at',
  'prompt',
  'lane',
  'model',
  'request_id',
  'kind',
  'session_title',
  'revised_prompt',
  'settings',
  'deleted_at',
  'thumbnail_state',
  'derived_from',
  'session_id',
] as const;
const SELECT_ASSETS = `SELECT ${COLUMNS.map((column) => `a.${column}`).join(', ')}, s.title AS session_current_title
  FROM assets a LEFT JOIN sessions s ON s.id = a.session_id`;
const SELECT_PLAIN = `SELECT ${COLUMNS.join(', ')} FROM assets`;
const NEWEST_FIRST = 'ORDER BY a.created_at DESC, a.id DESC';

/** One group per title a row shows now (store/assets.ts SELECT_GROUPS says why): asset_groups gathered under their titles. */
const SELECT_GROUPS = `WITH titled AS (
    SELECT g.session_id, COALESCE(s.title, g.session_title) AS title, (s.deleted_at IS NOT NULL) AS deleted, g.count, g.latest_at
    FROM asset_groups g LEFT JOIN sessions s ON s.id = g.session_id
  ), grouped AS (
    SELECT CASE WHEN title IS NULL THEN '' ELSE 't:' || title END COLLATE "C" AS "groupKey", MIN(title) AS "sessionTitle",
      COALESCE(array_to_json(array_agg(session_id ORDER BY session_id) FILTER (WHERE session_id IS NOT NULL))::text, '[]') AS "sessionIds",
      COUNT(*) FILTER (WHERE session_id IS NULL)::integer AS unlinked,
      COALESCE(MIN(CASE WHEN session_id IS NOT NULL THEN deleted::integer END), 0) AS "sessionDeleted",
      SUM(count)::integer AS count, MAX(latest_at) AS "latestAt"
    FROM titled GROUP BY 1
  )
  SELECT * FROM grouped`;

/** Positional parameters of a statement being built: `add` answers the placeholder of a value. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The filter's conditions (besides search), their values added to `params`. */
function filterConditions(filter: AssetFilter, params: Params): string[] {
  const conditions = ['a.deleted_at IS NULL'];
  if (filter.sessionTitle !== undefined)
    conditions.push(`COALESCE(s.title, a.session_title) IS NOT DISTINCT FROM ${params.add(filter.sessionTitle)}`);
  if (filter.sessionId !== undefined) conditions.push(`a.session_id = ${params.add(filter.sessionId)}`);
  if (filter.unlinkedTitle !== undefined)
    conditions.push(
      filter.unlinkedTitle === null
        ? 'a.session_id IS NULL AND a.session_title IS NULL'
        : `a.session_id IS NULL AND a.session_title = ${params.add(filter.unlinkedTitle)}`,
    );
  if (filter.lane !== undefined) conditions.push(`a.lane = ${params.add(filter.lane)}`);
  if (filter.model !== undefined) conditions.push(`a.model = ${params.add(filter.model)}`);
  if (filter.kind !== undefined) conditions.push(`a.kind = ${params.add(filter.kind)}`);
  if (filter.formats !== undefined)
    conditions.push(filter.formats.length === 0 ? 'false' : `a.format = ANY(${params.add(filter.formats)}::text[])`);
  if (filter.since !== undefined) conditions.push(`a.created_at >= ${params.add(filter.since)}`);
  if (filter.until !== undefined) conditions.push(`a.created_at < ${params.add(filter.until)}`);
  return conditions;
}

export function pgAssetRepository(database: PgDatabase): AssetRepository {
  const one = async (text: string, values: readonly unknown[]): Promise<AssetRow | undefined> =>
    (await database.query<AssetRow>(text, values))[0];
  /** Whether a write changed a row (each such statement answers `RETURNING 1`). */
  const changed = async (text: string, values: readonly unknown[]): Promise<boolean> => (await database.query(text, values)).length > 0;

  return {
    async insert(row) {
      const search = searchColumns(row.prompt, row.revised_prompt);
      const columns = [...COLUMNS.filter((column) => column !== 'id' && column !== 'deleted_at'), 'search_keys', 'search_text'] as const;
      const values = columns.map((column) =>
        column === 'search_keys' ? search.keys : column === 'search_text' ? search.text : row[column as keyof typeof row],
      );
      // A taken file name or thumbnail is PostgreSQL's unique_violation (code 23505), thrown as is.
      await database.query(
        `INSERT INTO assets (${columns.join(', ')}) VALUES (${columns.map((_column, index) => `$${index + 1}`).join(', ')})`,
        values,
      );
    },
    find: (filename) => one(`${SELECT_ASSETS} WHERE a.filename = $1`, [filename]),
    takenNames: async (candidates) =>
      (
        await database.query<{ taken: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM assets WHERE filename = c.filename OR thumbnail = c.thumbnail) AS taken
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(filename, thumbnail, ord) ORDER BY c.ord`,
          [candidates.map((each) => each.filename), candidates.map((each) => each.thumbnail)],
        )
      ).map((row) => row.taken),
    findLiveByThumbnail: (thumbnail) => one(`${SELECT_PLAIN} WHERE thumbnail = $1 AND deleted_at IS NULL`, [thumbnail]),

    async listLive({ limit, after, filter = {} }) {
      const params = new Params();
      const conditions = filterConditions(filter, params);
      if (after) {
        const createdAt = params.add(after.createdAt);
        conditions.push(`(a.created_at, a.id) < (${createdAt}, ${params.add(after.id)})`);
      }
      return database.query<AssetRow>(
        `${SELECT_ASSETS} WHERE ${conditions.join(' AND ')} ${NEWEST_FIRST} LIMIT ${params.add(limit)}`,
        params.values,
      );
    },

    // Each arm walks its own index (title-only rows of the title, the rows of each session) and the pages merge.
    async listGroupItems({ title, sessionIds, limit }) {
      const params = new Params();
      const page = params.add(limit);
      const arm = (where: string) => `(${SELECT_ASSETS} WHERE a.deleted_at IS NULL AND ${where} ${NEWEST_FIRST} LIMIT ${page})`;
      const arms = [
        arm(
          title === null
            ? 'a.session_id IS NULL AND a.session_title IS NULL'
            : `a.session_id IS NULL AND a.session_title = ${params.add(title)}`,
        ),
      ];
      for (const id of sessionIds) arms.push(arm(`a.session_id = ${params.add(id)}`));
      return database.query<AssetRow>(
        `SELECT * FROM (${arms.join(' UNION ALL ')}) AS items ORDER BY created_at DESC, id DESC LIMIT ${page}`,
        params.values,
      );
    },

    async search({ text, limit, afterId, filter = {} }) {
      const query = searchQuery(text);
      if (!query) return [];
      const params = new Params();
      const conditions = [`a.search_keys @> ${params.add(query.keys)}::text[]`, ...filterConditions(filter, params)];
      for (const pattern of query.patterns) conditions.push(`a.search_text LIKE ${params.add(pattern)}`);
      if (afterId !== undefined) conditions.push(`a.id < ${params.add(afterId)}`);
      return database.query<AssetRow>(
        `${SELECT_ASSETS} WHERE ${conditions.join(' AND ')} ORDER BY a.id DESC LIMIT ${params.add(limit)}`,
        params.values,
      );
    },

    listSessionGroups: ({ limit, after }) =>
      after
        ? database.query<SessionGroupRow>(
            `${SELECT_GROUPS} WHERE ("latestAt", "groupKey") < ($1, $2) ORDER BY "latestAt" DESC, "groupKey" DESC LIMIT $3`,
            [after.latestAt, after.key, limit],
          )
        : database.query<SessionGroupRow>(`${SELECT_GROUPS} ORDER BY "latestAt" DESC, "groupKey" DESC LIMIT $1`, [limit]),

    markDeleted: (filename, deletedAt) =>
      changed('UPDATE assets SET deleted_at = $1 WHERE filename = $2 AND deleted_at IS NULL RETURNING 1', [deletedAt, filename]),
    markRestored: (filename) =>
      changed('UPDATE assets SET deleted_at = NULL WHERE filename = $1 AND deleted_at IS NOT NULL RETURNING 1', [filename]),
    // One statement: the row is locked while both columns change, whoever else writes it.
    async markBroken(filename, deletedAt) {
      await database.query("UPDATE assets SET thumbnail_state = 'failed', deleted_at = COALESCE(deleted_at, $1) WHERE filename = $2", [
        deletedAt,
        filename,
      ]);
    },
    async setThumbnailState(filename, state) {
      await database.query('UPDATE assets SET thumbnail_state = $1 WHERE filename = $2', [state, filename]);
    },
    pendingThumbnails: () =>
      database.query<AssetRow>(`${SELECT_PLAIN} WHERE thumbnail_state = 'pending' AND deleted_at IS NULL ORDER BY id`),
    deletedSince: (since, limit) =>
      database.query<AssetRow>(
        `${SELECT_PLAIN} WHERE deleted_at IS NOT NULL AND deleted_at > $1 ORDER BY deleted_at DESC, id DESC LIMIT $2`,
        [since, limit],
      ),
    tombstonesDeletedBefore: (cutoff) =>
      database.query<AssetRow>(`${SELECT_PLAIN} WHERE deleted_at IS NOT NULL AND deleted_at <= $1 ORDER BY deleted_at`, [cutoff]),
    removeTombstone: (filename) => changed('DELETE FROM assets WHERE filename = $1 AND deleted_at IS NOT NULL RETURNING 1', [filename]),
    remove: (filename) => changed('DELETE FROM assets WHERE filename = $1 RETURNING 1', [filename]),
  };
}
