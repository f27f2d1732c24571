import type { AssetFormat } from '../api/index.js';
import { statementsOf, type StudioDatabase } from './database.js';

// The assets table (migration 2): one row per saved image. Live rows have
// deleted_at NULL; tombstones keep their row (and files) until the sweeper
// purges them. Lists are newest first by (created_at, id). An image made in a
// graph session carries its session_id (migration 6); reads join the sessions
// table for the session's title as it is now.

export interface AssetRow {
  id: number;
  filename: string;
  thumbnail: string;
  format: AssetFormat;
  width: number;
  height: number;
  bytes: number;
  created_at: string;
  prompt: string;
  lane: string;
  model: string;
  request_id: string;
  kind: string;
  session_title: string | null;
  revised_prompt: string | null;
  settings: string;
  deleted_at: string | null;
  /** `pending` until the thumbnail exists (and the image decoded fully); `failed` when it did not decode. */
  thumbnail_state: 'pending' | 'ready' | 'failed';
  /** A derived asset's source (e.g. the raster an SVG was traced from). */
  derived_from: string | null;
  /** The graph session it was made in (a node's image); session_title then holds the title it had. */
  session_id: string | null;
  /** Read with the sessions table joined: that session's title now (null without a session). */
  session_current_title?: string | null;
}

export type NewAssetRow = Omit<AssetRow, 'id' | 'deleted_at' | 'session_current_title'>;

/** Position after which a newest-first page continues. */
export interface ItemPosition {
  createdAt: string;
  id: number;
}

/** Position after which a page of session groups continues; key is the group's key (asset_groups.group_key). */
export interface GroupPosition {
  latestAt: string;
  key: string;
}

export interface SessionGroupRow {
  /** `t:<title>` (every image of that title: of graph sessions titled so now, and title-only ones), or '' (no title). */
  groupKey: string;
  sessionTitle: string | null;
  /** The graph sessions of the group, as a JSON array of ids. */
  sessionIds: string;
  /** How many asset_groups rows of the group are title-only (no graph session). */
  unlinked: number;
  /** 1 when the group has graph sessions and every one of them was deleted (their images stay). */
  sessionDeleted: number;
  count: number;
  latestAt: string;
}

// Columns are qualified: the sessions table, joined for titles, has id, created_at and deleted_at too.
const FROM_ASSETS = 'FROM assets a LEFT JOIN sessions s ON s.id = a.session_id';
const SELECT_ASSETS = `SELECT a.*, s.title AS session_current_title ${FROM_ASSETS}`;
const ITEM_ORDER = 'ORDER BY a.created_at DESC, a.id DESC LIMIT @limit';
const AFTER_ITEM = '(a.created_at < @createdAt OR (a.created_at = @createdAt AND a.id < @id))';
/**
 * One group per session title (spec: groupBy=session groups by session title): the rows of
 * asset_groups (one per graph session or title-only title, kept by triggers) gathered under the
 * title each has now, so sessions sharing a title share a group and a rename moves its images at
 * once. Images with no title are one group (key ''). asset_groups holds a row per session, not per
 * image, so gathering it on read stays small.
 */
const SELECT_GROUPS = `WITH titled AS (
    SELECT g.session_id AS sessionId, COALESCE(s.title, g.session_title) AS title, (s.deleted_at IS NOT NULL) AS deleted, g.count AS count, g.latest_at AS latestAt
    FROM asset_groups g LEFT JOIN sessions s ON s.id = g.session_id
  ), grouped AS (
    SELECT CASE WHEN title IS NULL THEN '' ELSE 't:' || title END AS groupKey, title AS sessionTitle,
      COALESCE(json_group_array(sessionId) FILTER (WHERE sessionId IS NOT NULL), '[]') AS sessionIds,
      SUM(sessionId IS NULL) AS unlinked,
      COALESCE(MIN(CASE WHEN sessionId IS NOT NULL THEN deleted END), 0) AS sessionDeleted,
      SUM(count) AS count, MAX(latestAt) AS latestAt
    FROM titled GROUP BY groupKey
  )
  SELECT * FROM grouped`;

function statements(db: StudioDatabase) {
  return {
    insert: db.prepare<NewAssetRow>(
      `INSERT INTO assets (filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, session_title, revised_prompt, settings, thumbnail_state, derived_from, session_id)
       VALUES (@filename, @thumbnail, @format, @width, @height, @bytes, @created_at, @prompt, @lane, @model, @request_id, @kind, @session_title, @revised_prompt, @settings, @thumbnail_state, @derived_from, @session_id)`,
    ),
    byFilename: db.prepare<[string], AssetRow>(`${SELECT_ASSETS} WHERE a.filename = ?`),
    nameTaken: db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM assets WHERE filename = ? OR thumbnail = ?'),
    liveByThumbnail: db.prepare<[string], AssetRow>('SELECT * FROM assets WHERE thumbnail = ? AND deleted_at IS NULL'),
    // Groups are rows of asset_groups (migration 8, kept by triggers): a page of groups is a page of rows.
    groups: db.prepare<{ limit: number }, SessionGroupRow>(`${SELECT_GROUPS} ORDER BY latestAt DESC, groupKey DESC LIMIT @limit`),
    groupsAfter: db.prepare<{ limit: number; latestAt: string; key: string }, SessionGroupRow>(
      `${SELECT_GROUPS} WHERE (latestAt, groupKey) < (@latestAt, @key) ORDER BY latestAt DESC, groupKey DESC LIMIT @limit`,
    ),
    markDeleted: db.prepare<[string, string]>('UPDATE assets SET deleted_at = ? WHERE filename = ? AND deleted_at IS NULL'),
    markRestored: db.prepare<[string]>('UPDATE assets SET deleted_at = NULL WHERE filename = ? AND deleted_at IS NOT NULL'),
    tombstonesBefore: db.prepare<[string], AssetRow>(
      'SELECT * FROM assets WHERE deleted_at IS NOT NULL AND deleted_at <= ? ORDER BY deleted_at',
    ),
    remove: db.prepare<[string]>('DELETE FROM assets WHERE filename = ? AND deleted_at IS NOT NULL'),
    purge: db.prepare<[string]>('DELETE FROM assets WHERE filename = ?'),
    thumbnailState: db.prepare<[string, string]>('UPDATE assets SET thumbnail_state = ? WHERE filename = ?'),
    deletedSince: db.prepare<[string, number], AssetRow>(
      'SELECT * FROM assets WHERE deleted_at IS NOT NULL AND deleted_at > ? ORDER BY deleted_at DESC, id DESC LIMIT ?',
    ),
    broken: db.prepare<[string, string]>(
      "UPDATE assets SET thumbnail_state = 'failed', deleted_at = COALESCE(deleted_at, ?) WHERE filename = ?",
    ),
    pendingThumbnails: db.prepare<[], AssetRow>(
      `SELECT * FROM assets WHERE thumbnail_state = 'pending' AND deleted_at IS NULL ORDER BY id`,
    ),
  };
}

const prepared = statementsOf(statements);

export const insertAsset = (db: StudioDatabase, row: NewAssetRow): void => {
  prepared(db).insert.run(row);
};

/** The row for a file name, live or tombstoned. */
export const findAsset = (db: StudioDatabase, filename: string): AssetRow | undefined => prepared(db).byFilename.get(filename);

export const isNameTaken = (db: StudioDatabase, filename: string, thumbnail: string): boolean =>
  prepared(db).nameTaken.get(filename, thumbnail) !== undefined;

export const findLiveByThumbnail = (db: StudioDatabase, thumbnail: string): AssetRow | undefined =>
  prepared(db).liveByThumbnail.get(thumbnail);

/** What narrows a listing; every field combines with the others. */
export interface AssetFilter {
  /** The title an image shows: its graph session's title now, else the title it was saved with. */
  readonly sessionTitle?: string | null;
  /** Images made in this graph session (deleted or not). */
  readonly sessionId?: string;
  /** Images with this title and no graph session (a title group of `groupBy=session`). */
  readonly unlinkedTitle?: string | null;
  readonly lane?: string;
  readonly model?: string;
  /** What made the asset (its `kind` column). */
  readonly kind?: string;
  /** What the asset is, as the formats it may have (an empty list matches nothing). */
  readonly formats?: readonly string[];
  /** Made at or after this ISO instant. */
  readonly since?: string;
  /** Made before this ISO instant. */
  readonly until?: string;
  /** Full-text words of the prompt or revised prompt (see searchExpression). */
  readonly search?: string;
}

/** The most words a search takes (each one narrows; more would only cost). */
export const SEARCH_MAX_WORDS = 16;

/**
 * A search box's text as an FTS5 query: its words (letters and digits, as the
 * unicode61 tokenizer cuts them, case and accents folded by the index), each
 * quoted so no FTS syntax gets through, all required; a word of two or more
 * characters also matches the longer words it begins ("light" finds
 * "lighthouse"). Undefined when the text holds no word.
 */
export function searchExpression(text: string): string | undefined {
  const words = (text.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).slice(0, SEARCH_MAX_WORDS);
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"${word.length >= 2 ? '*' : ''}`).join(' ');
}

const listings = new WeakMap<StudioDatabase, Map<string, ReturnType<StudioDatabase['prepare']>>>();

function cachedStatement(db: StudioDatabase, sql: string): ReturnType<StudioDatabase['prepare']> {
  let cache = listings.get(db);
  if (!cache) listings.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

/** The filter's conditions (besides search) and their parameters. */
function filterConditions(filter: AssetFilter): { conditions: string[]; params: Record<string, unknown> } {
  const conditions = ['a.deleted_at IS NULL'];
  const params: Record<string, unknown> = {};
  const equal = (column: string, name: string, value: unknown) => {
    conditions.push(`${column} = @${name}`);
    params[name] = value;
  };
  if (filter.sessionTitle !== undefined) {
    conditions.push('COALESCE(s.title, a.session_title) IS @title');
    params.title = filter.sessionTitle;
  }
  if (filter.sessionId !== undefined) equal('a.session_id', 'sessionId', filter.sessionId);
  if (filter.unlinkedTitle !== undefined) {
    conditions.push('a.session_id IS NULL AND a.session_title IS @unlinkedTitle');
    params.unlinkedTitle = filter.unlinkedTitle;
  }
  if (filter.lane !== undefined) equal('a.lane', 'lane', filter.lane);
  if (filter.model !== undefined) equal('a.model', 'model', filter.model);
  if (filter.kind !== undefined) equal('a.kind', 'kind', filter.kind);
  if (filter.formats !== undefined) {
    if (filter.formats.length === 0) conditions.push('0');
    else if (filter.formats.length === 1) equal('a.format', 'format', filter.formats[0]);
    // Several formats (every raster one): `+` keeps SQLite off the format index, whose IN ranges would
    // need a sort of every match; the newest-first walk finds a page at once.
    else conditions.push(`+a.format IN (${filter.formats.map((format) => `'${format.replace(/'/g, "''")}'`).join(', ')})`);
  }
  if (filter.since !== undefined) {
    conditions.push('a.created_at >= @since');
    params.since = filter.since;
  }
  if (filter.until !== undefined) {
    conditions.push('a.created_at < @until');
    params.until = filter.until;
  }
  return { conditions, params };
}

/** Live rows, newest first (created_at, id), after a position, narrowed by the filter (one prepared statement per filter shape). */
export function listLiveAssets(db: StudioDatabase, options: { limit: number; after?: ItemPosition; filter?: AssetFilter }): AssetRow[] {
  const { limit, after, filter = {} } = options;
  const { conditions, params } = filterConditions(filter);
  if (after) {
    conditions.push(AFTER_ITEM);
    Object.assign(params, after);
  }
  const sql = `${SELECT_ASSETS} WHERE ${conditions.join(' AND ')} ${ITEM_ORDER}`;
  return cachedStatement(db, sql).all({ ...params, limit }) as AssetRow[];
}

/**
 * The newest live rows of one title group (groupBy=session): the title-only rows of that title and
 * the rows of each of its graph sessions, each walked on its own index (assets_live_session,
 * assets_live_session_id) and merged, so a group's first items cost the same however deep in the
 * library they are. The same rows as the `sessionTitle` filter (its continuation), read faster.
 */
export function listGroupItems(
  db: StudioDatabase,
  options: { title: string | null; sessionIds: readonly string[]; limit: number },
): AssetRow[] {
  const arm = (where: string) => `SELECT * FROM (${SELECT_ASSETS} WHERE a.deleted_at IS NULL AND ${where} ${ITEM_ORDER})`;
  const params: Record<string, unknown> = { title: options.title, limit: options.limit };
  const arms = [arm('a.session_id IS NULL AND a.session_title IS @title')];
  options.sessionIds.forEach((id, index) => {
    arms.push(arm(`a.session_id = @s${index}`));
    params[`s${index}`] = id;
  });
  const sql = `SELECT * FROM (${arms.join(' UNION ALL ')}) ORDER BY created_at DESC, id DESC LIMIT @limit`;
  return cachedStatement(db, sql).all(params) as AssetRow[];
}

/**
 * Live rows matching a full-text search (an FTS5 expression: searchExpression),
 * narrowed by the filter, newest first by id (the order they entered history),
 * after the row `afterId`. The index is walked in that order and stops at the
 * page's end, so a page costs the same whatever the library's size or the
 * number of matches. (CROSS JOIN keeps the index as the outer loop.)
 */
export function searchLiveAssets(
  db: StudioDatabase,
  options: { match: string; limit: number; afterId?: number; filter?: AssetFilter },
): AssetRow[] {
  const { conditions, params } = filterConditions(options.filter ?? {});
  conditions.unshift('assets_fts MATCH @match');
  if (options.afterId !== undefined) {
    conditions.push('f.rowid < @afterId');
    params.afterId = options.afterId;
  }
  const sql = `SELECT a.*, s.title AS session_current_title FROM assets_fts f CROSS JOIN assets a ON a.id = f.rowid LEFT JOIN sessions s ON s.id = a.session_id
    WHERE ${conditions.join(' AND ')} ORDER BY f.rowid DESC LIMIT @limit`;
  return cachedStatement(db, sql).all({ ...params, match: options.match, limit: options.limit }) as AssetRow[];
}

/** Session groups over all live rows, most recently active first. */
export const listSessionGroups = (db: StudioDatabase, options: { limit: number; after?: GroupPosition }): SessionGroupRow[] =>
  options.after
    ? prepared(db).groupsAfter.all({ limit: options.limit, ...options.after })
    : prepared(db).groups.all({ limit: options.limit });

/** Tombstones a live row; false when there was none. */
export const markAssetDeleted = (db: StudioDatabase, filename: string, deletedAt: string): boolean =>
  prepared(db).markDeleted.run(deletedAt, filename).changes === 1;

export const markAssetRestored = (db: StudioDatabase, filename: string): boolean => prepared(db).markRestored.run(filename).changes === 1;

/** Tombstones deleted at or before the cutoff (ISO time), oldest first. */
export const tombstonesDeletedBefore = (db: StudioDatabase, cutoff: string): AssetRow[] => prepared(db).tombstonesBefore.all(cutoff);

/** Removes a tombstone's row (never a live one). */
export const removeTombstone = (db: StudioDatabase, filename: string): boolean => prepared(db).remove.run(filename).changes === 1;

/** Removes an asset's row, live or not (a permanent delete, after its files). */
export const removeAsset = (db: StudioDatabase, filename: string): boolean => prepared(db).purge.run(filename).changes === 1;

export const setThumbnailState = (db: StudioDatabase, filename: string, state: AssetRow['thumbnail_state']): void =>
  void prepared(db).thumbnailState.run(state, filename);

/** Live assets whose thumbnail is still to be made (a crash came between the answer and the thumbnail). */
export const assetsWithPendingThumbnails = (db: StudioDatabase): AssetRow[] => prepared(db).pendingThumbnails.all();

/** Tombstones deleted after `since`, newest deletion first. */
export const deletedSince = (db: StudioDatabase, since: string, limit: number): AssetRow[] => prepared(db).deletedSince.all(since, limit);

/** An image that did not decode: thumbnail failed and tombstoned, in one statement. */
export const markAssetBroken = (db: StudioDatabase, filename: string, deletedAt: string): void =>
  void prepared(db).broken.run(deletedAt, filename);
