import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { lazy } from '../common/lazy.js';
import { ServiceError } from './errors.js';
import { isStorageFull } from '../common/storage-full.js';
import { recordOf, type AssetRecord } from './assets.js';
import { MEDIA_KINDS, type AssetKind, type MediaKind } from './api/index.js';
import { LIMITS } from './catalog/limits.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { StudioContext } from './context.js';
import { searchExpression, type AssetFilter, type AssetRow } from './store/assets.js';

// History: listing (newest first, or grouped by session), tombstones,
// restore within the retention window, and the sweeper that purges
// tombstones past it.

const DAY_MS = 24 * 60 * 60 * 1000;
/** A purge on a full disk waits this long, at most this many times, for its files' room to come back. */
const PURGE_ROOM_WAIT_MS = 100;
const PURGE_ROOM_TRIES = 30;

/** Page sizes when the client does not say (each at most LIMITS.historyPageMax). */
export const HISTORY_PAGE_DEFAULTS = { items: 50, groups: 20, groupItems: 12 } as const;

/** Days a tombstone stays restorable: SVC_HISTORY_RETENTION_DAYS, then the config file, then the default. */
export function retentionDays(ctx: StudioContext): number {
  const fromEnv = Number(ctx.env.SVC_HISTORY_RETENTION_DAYS);
  if (ctx.env.SVC_HISTORY_RETENTION_DAYS && Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return ctx.settings.get().historyRetentionDays ?? LIMITS.historyRetentionDaysDefault;
}

const restorableUntilOf = (ctx: StudioContext, deletedAt: string): string =>
  new Date(new Date(deletedAt).getTime() + retentionDays(ctx) * DAY_MS).toISOString();

// Cursors (see cursor.ts): an items cursor is never read as a search or a groups one.
const itemsCursor = lazy(() => z.object({ m: z.literal('items'), c: z.string(), i: z.number().int() }));
const searchCursor = lazy(() => z.object({ m: z.literal('search'), i: z.number().int() }));
const groupsCursor = lazy(() => z.object({ m: z.literal('groups'), l: z.string(), k: z.string() }));

export interface HistoryPage {
  items: AssetRecord[];
  nextCursor: string | null;
}

export interface SessionGroup {
  /** The group's title (spec: grouped by session title); null gathers the assets saved without one. */
  sessionTitle: string | null;
  /** The graph sessions titled so, newest id order aside (sorted); empty for title-only images. */
  sessionIds: string[];
  /** The group's one graph session when it holds only that session's images; else null. */
  sessionId: string | null;
  /** True when the group's graph sessions were all deleted: their images stay in history, under their last title. */
  sessionDeleted: boolean;
  count: number;
  latestAt: string;
  /** The group's newest items (at most groupItems). */
  items: AssetRecord[];
  /** Continues this group's items: `?session=<title>&cursor=<this>` (`session=` empty: the untitled group); null when `items` is all of it. */
  itemsNextCursor: string | null;
}

export interface HistoryGroupsPage {
  groups: SessionGroup[];
  nextCursor: string | null;
}

async function itemsPage(ctx: StudioContext, options: { limit: number; cursor?: string; filter?: AssetFilter }): Promise<HistoryPage> {
  const { limit, filter } = options;
  // One extra row tells whether another page exists.
  if (filter?.search !== undefined) {
    if (searchExpression(filter.search) === undefined)
      throw new ServiceError('BAD_REQUEST', 'q holds no word to search for (letters or digits).', { details: { field: 'q' } });
    const after = options.cursor ? decodeCursor(options.cursor, searchCursor) : undefined;
    const rows = await ctx.store.assets.search({ text: filter.search, limit: limit + 1, afterId: after?.i, filter });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(recordOf), nextCursor: rows.length > limit && last ? encodeCursor({ m: 'search', i: last.id }) : null };
  }
  const after = options.cursor ? decodeCursor(options.cursor, itemsCursor) : undefined;
  const rows = await ctx.store.assets.listLive({ limit: limit + 1, after: after && { createdAt: after.c, id: after.i }, filter });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(recordOf),
    nextCursor: rows.length > limit && last ? encodeCursor({ m: 'items', c: last.created_at, i: last.id }) : null,
  };
}

/** The item listing's filters, as the API names them. */
export interface HistoryFilter {
  /** A session title; null: the assets without one. */
  sessionTitle?: string | null;
  sessionId?: string;
  provider?: string;
  model?: string;
  /** What an asset is (image, video, vector-svg) or what made it (generate, edit, node, import...). */
  kind?: MediaKind | AssetKind;
  since?: string;
  until?: string;
  q?: string;
}

function assetFilter(filter: HistoryFilter): AssetFilter {
  const { kind } = filter;
  const media = kind !== undefined && Object.hasOwn(MEDIA_KINDS, kind) ? MEDIA_KINDS[kind as MediaKind] : undefined;
  return {
    ...(filter.sessionTitle !== undefined ? { sessionTitle: filter.sessionTitle } : {}),
    ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
    ...(filter.provider !== undefined ? { lane: filter.provider } : {}),
    ...(filter.model !== undefined ? { model: filter.model } : {}),
    ...(kind !== undefined ? (media ? { formats: media } : { kind }) : {}),
    ...(filter.since !== undefined ? { since: filter.since } : {}),
    ...(filter.until !== undefined ? { until: filter.until } : {}),
    ...(filter.q !== undefined ? { search: filter.q } : {}),
  };
}

/**
 * Live assets narrowed by the filter, newest first by creation time; with `q`
 * (full-text), newest first by the order they entered history, which differs
 * only for files adopted from disk at start-up.
 */
export const listHistory = (
  ctx: StudioContext,
  options: { limit: number; cursor?: string; filter?: HistoryFilter },
): Promise<HistoryPage> => itemsPage(ctx, { limit: options.limit, cursor: options.cursor, filter: assetFilter(options.filter ?? {}) });

/** Session groups over all live assets, most recently active first; each with its newest items. */
export async function listHistoryGroups(
  ctx: StudioContext,
  options: { limit: number; cursor?: string; groupItems: number },
): Promise<HistoryGroupsPage> {
  const after = options.cursor ? decodeCursor(options.cursor, groupsCursor) : undefined;
  const rows = await ctx.store.assets.listSessionGroups({ limit: options.limit + 1, after: after && { latestAt: after.l, key: after.k } });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  const groups = await Promise.all(
    page.map(async (group): Promise<SessionGroup> => {
      const sessionIds = (JSON.parse(group.sessionIds) as string[]).sort();
      // One extra row tells whether the group goes on; it continues as the `session=<title>` listing (same rows, same cursor).
      const rows = await ctx.store.assets.listGroupItems({ title: group.sessionTitle, sessionIds, limit: options.groupItems + 1 });
      const page = rows.slice(0, options.groupItems);
      const last = page.at(-1);
      const items = {
        items: page.map(recordOf),
        nextCursor: rows.length > options.groupItems && last ? encodeCursor({ m: 'items', c: last.created_at, i: last.id }) : null,
      };
      return {
        sessionTitle: group.sessionTitle,
        sessionIds,
        sessionId: sessionIds.length === 1 && group.unlinked === 0 ? sessionIds[0] : null,
        sessionDeleted: group.sessionDeleted === 1,
        count: group.count,
        latestAt: group.latestAt,
        items: items.items,
        itemsNextCursor: items.nextCursor,
      };
    }),
  );
  return {
    groups,
    nextCursor: rows.length > options.limit && last ? encodeCursor({ m: 'groups', l: last.latestAt, k: last.groupKey }) : null,
  };
}

async function liveRow(ctx: StudioContext, filename: string): Promise<AssetRow> {
  const row = await ctx.store.assets.find(filename);
  if (!row) throw new ServiceError('NOT_FOUND', `No asset ${filename} in history.`, { details: { filename } });
  if (row.deleted_at !== null) {
    throw new ServiceError('NOT_FOUND', `${filename} was deleted; restore it to see it again.`, {
      details: { filename, deletedAt: row.deleted_at, restorableUntil: restorableUntilOf(ctx, row.deleted_at) },
    });
  }
  return row;
}

/** One live asset's record. */
export const getHistoryAsset = async (ctx: StudioContext, filename: string): Promise<AssetRecord> => recordOf(await liveRow(ctx, filename));

export interface Tombstone {
  filename: string;
  deletedAt: string;
  restorableUntil: string;
}

/** Tombstones an asset (files stay until the sweeper). Deleting a tombstone again answers the same tombstone. */
export async function deleteHistoryAsset(ctx: StudioContext, filename: string, now = new Date()): Promise<Tombstone> {
  const row = await ctx.store.assets.find(filename);
  if (!row) throw new ServiceError('NOT_FOUND', `No asset ${filename} in history.`, { details: { filename } });
  let deletedAt = row.deleted_at;
  if (deletedAt === null) {
    deletedAt = now.toISOString();
    if (!(await ctx.store.assets.markDeleted(filename, deletedAt))) return deleteHistoryAsset(ctx, filename, now); // lost a race: read again
  }
  return { filename, deletedAt, restorableUntil: restorableUntilOf(ctx, deletedAt) };
}

export interface Purged {
  filename: string;
  purged: true;
  /** The image's bytes given back to the disk (its thumbnail's aside). */
  freedBytes: number;
}

/**
 * Deletes an asset now, live or tombstoned, with no undo. Files first, then the row: removing a file
 * needs no free space, so this works on a full disk (where even a tombstone, a database write, may not).
 */
export async function purgeHistoryAsset(ctx: StudioContext, filename: string): Promise<Purged> {
  const row = await ctx.store.assets.find(filename);
  if (!row) throw new ServiceError('NOT_FOUND', `No asset ${filename} in history.`, { details: { filename } });
  await Promise.all([ctx.assets.remove('generated', row.filename), ctx.assets.remove('thumbnails', row.thumbnail)]);
  // A removed file's room comes back once nothing holds it open (a download, the thumbnail repair still
  // reading it): on a full disk the row's delete waits for that room a little, then answers STORAGE_FULL.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await ctx.store.assets.remove(row.filename);
      break;
    } catch (error) {
      if (!isStorageFull(error) || attempt >= PURGE_ROOM_TRIES) throw error;
      await sleep(PURGE_ROOM_WAIT_MS);
    }
  }
  return { filename: row.filename, purged: true, freedBytes: row.bytes };
}

/** Brings a tombstoned asset back within the retention window; a live asset answers as is. */
export async function restoreHistoryAsset(ctx: StudioContext, filename: string, now = new Date()): Promise<AssetRecord> {
  const row = await ctx.store.assets.find(filename);
  if (!row) throw new ServiceError('NOT_FOUND', `No asset ${filename} in history (it may have been purged).`, { details: { filename } });
  if (row.deleted_at === null) return recordOf(row);
  const restorableUntil = restorableUntilOf(ctx, row.deleted_at);
  if (now.getTime() >= new Date(restorableUntil).getTime()) {
    throw new ServiceError('RETENTION_EXPIRED', `${filename} was deleted more than ${retentionDays(ctx)} days ago.`, {
      details: { filename, deletedAt: row.deleted_at, restorableUntil },
    });
  }
  if (!(await ctx.assets.exists('generated', filename))) {
    throw new ServiceError('NOT_FOUND', `The file of ${filename} is gone from the generated directory.`, { details: { filename } });
  }
  await ctx.store.assets.markRestored(filename);
  return recordOf({ ...row, deleted_at: null });
}

/**
 * Purges tombstones past retention at `now`: files first, then the row, so a
 * crash in between leaves a tombstone the next sweep finishes. Returns how many.
 */
export async function sweepExpired(ctx: StudioContext, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays(ctx) * DAY_MS).toISOString();
  let purged = 0;
  for (const row of await ctx.store.assets.tombstonesDeletedBefore(cutoff)) {
    await Promise.all([ctx.assets.remove('generated', row.filename), ctx.assets.remove('thumbnails', row.thumbnail)]);
    if (await ctx.store.assets.removeTombstone(row.filename)) purged += 1;
  }
  return purged;
}
