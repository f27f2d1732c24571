import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AssetRepository, StudioStore } from '../../../src/studio/store/repositories.js';
import { assetRow, minute, type MakeStore, type StoreHarness } from './harness.js';

// The AssetRepository contract: history's rows as any implementation must keep
// them (round trips, newest-first order and pages, filters, full-text search,
// tombstones, title groups). The SQLite store runs it in test/store/sqlite.test.ts.

export function describeAssetRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`AssetRepository contract: ${name}`, () => {
    let harness: StoreHarness;
    let store: StudioStore;
    let assets: AssetRepository;
    beforeEach(async () => {
      harness = await makeStore();
      store = harness.store;
      assets = store.assets;
    });
    afterEach(() => harness.close());

    const filenames = (rows: readonly { filename: string }[]) => rows.map((row) => row.filename);

    it('answers a row as it was inserted, unknown names as undefined, and refuses a name taken', async () => {
      const row = assetRow('a.png', {
        prompt: 'a red fox',
        revised_prompt: 'a red fox, detailed',
        settings: '{"size":"1024x1024"}',
        derived_from: 'b.png',
      });
      await assets.insert(row);
      const found = await assets.find('a.png');
      expect(found).toMatchObject({ ...row, deleted_at: null, session_current_title: null });
      expect(typeof found?.id).toBe('number');
      expect(await assets.find('missing.png')).toBeUndefined();
      await expect(assets.insert(assetRow('a.png'))).rejects.toThrow();
      const candidates = [
        { filename: 'other.png', thumbnail: 'other.webp' },
        { filename: 'a.png', thumbnail: 'other.webp' },
        { filename: 'other.png', thumbnail: 'a.png.thumb.webp' },
        { filename: 'third.png', thumbnail: 'third.webp' },
      ];
      expect(await assets.takenNames(candidates)).toEqual([false, true, true, false]);
      expect(await assets.takenNames([])).toEqual([]);
    });

    it('lists live rows newest first by creation time then id, a page after a position, tombstones left out', async () => {
      await assets.insert(assetRow('old.png', { created_at: minute(1) }));
      await assets.insert(assetRow('tie-1.png', { created_at: minute(2) }));
      await assets.insert(assetRow('tie-2.png', { created_at: minute(2) }));
      await assets.insert(assetRow('new.png', { created_at: minute(3) }));
      await assets.insert(assetRow('gone.png', { created_at: minute(4) }));
      expect(await assets.markDeleted('gone.png', minute(5))).toBe(true);
      const first = await assets.listLive({ limit: 2 });
      expect(filenames(first)).toEqual(['new.png', 'tie-2.png']);
      const last = first[1];
      const next = await assets.listLive({ limit: 10, after: { createdAt: last.created_at, id: last.id } });
      expect(filenames(next)).toEqual(['tie-1.png', 'old.png']);
    });

    it('narrows a listing by lane, model, kind, formats and time, each combining with the others', async () => {
      await assets.insert(assetRow('a.png', { lane: 'api', model: 'm1', created_at: minute(1) }));
      await assets.insert(assetRow('b.webp', { format: 'webp', lane: 'gamma', model: 'm2', created_at: minute(2) }));
      await assets.insert(assetRow('c.svg', { format: 'svg', kind: 'trace', lane: 'vector', model: 'vtracer', created_at: minute(3) }));
      await assets.insert(assetRow('d.png', { lane: 'api', model: 'm2', kind: 'edit', created_at: minute(4) }));
      expect(filenames(await assets.listLive({ limit: 10, filter: { lane: 'api' } }))).toEqual(['d.png', 'a.png']);
      expect(filenames(await assets.listLive({ limit: 10, filter: { lane: 'api', model: 'm2' } }))).toEqual(['d.png']);
      expect(filenames(await assets.listLive({ limit: 10, filter: { kind: 'trace' } }))).toEqual(['c.svg']);
      expect(filenames(await assets.listLive({ limit: 10, filter: { formats: ['png', 'webp'] } }))).toEqual(['d.png', 'b.webp', 'a.png']);
      expect(filenames(await assets.listLive({ limit: 10, filter: { formats: ['svg'] } }))).toEqual(['c.svg']);
      expect(await assets.listLive({ limit: 10, filter: { formats: [] } })).toEqual([]);
      expect(filenames(await assets.listLive({ limit: 10, filter: { since: minute(2), until: minute(4) } }))).toEqual(['c.svg', 'b.webp']);
    });

    it('searches prompts and revised prompts: every word required, prefixes match, case folded, newest entry first, paged by id', async () => {
      await assets.insert(assetRow('fox.png', { prompt: 'A Red fox at dawn', created_at: minute(5) }));
      await assets.insert(
        assetRow('kite.png', { prompt: 'kite over hills', revised_prompt: 'a red kite over green hills', created_at: minute(1) }),
      );
      await assets.insert(assetRow('light.png', { prompt: 'a lighthouse at dusk', created_at: minute(2) }));
      await assets.insert(assetRow('deleted.png', { prompt: 'red herring' }));
      await assets.markDeleted('deleted.png', minute(9));
      // Newest first in the order rows entered history (not by created_at).
      expect(filenames(await assets.search({ text: 'RED', limit: 10 }))).toEqual(['kite.png', 'fox.png']);
      expect(filenames(await assets.search({ text: 'ligh', limit: 10 }))).toEqual(['light.png']);
      expect(filenames(await assets.search({ text: 'red dawn', limit: 10 }))).toEqual(['fox.png']);
      expect(await assets.search({ text: 'red lighthouse', limit: 10 })).toEqual([]);
      expect(await assets.search({ text: '!!! ...', limit: 10 })).toEqual([]);
      expect(filenames(await assets.search({ text: 'red', limit: 10, filter: { since: minute(3) } }))).toEqual(['fox.png']);
      const [first] = await assets.search({ text: 'red', limit: 1 });
      expect(filenames(await assets.search({ text: 'red', limit: 10, afterId: first.id }))).toEqual(['fox.png']);
    });

    it('tombstones, restores and removes: each answers whether it changed anything', async () => {
      await assets.insert(assetRow('a.png'));
      expect(await assets.findLiveByThumbnail('a.png.thumb.webp')).toMatchObject({ filename: 'a.png' });
      expect(await assets.markDeleted('a.png', minute(10))).toBe(true);
      expect(await assets.markDeleted('a.png', minute(11))).toBe(false);
      expect((await assets.find('a.png'))?.deleted_at).toBe(minute(10));
      expect(await assets.findLiveByThumbnail('a.png.thumb.webp')).toBeUndefined();
      expect(await assets.takenNames([{ filename: 'a.png', thumbnail: 'x' }])).toEqual([true]);
      expect(await assets.markRestored('a.png')).toBe(true);
      expect(await assets.markRestored('a.png')).toBe(false);
      expect((await assets.find('a.png'))?.deleted_at).toBeNull();
      // A live row is never removed as a tombstone.
      expect(await assets.removeTombstone('a.png')).toBe(false);
      expect(await assets.remove('a.png')).toBe(true);
      expect(await assets.find('a.png')).toBeUndefined();
      expect(await assets.remove('a.png')).toBe(false);
      expect(await assets.markDeleted('missing.png', minute(1))).toBe(false);
    });

    it('answers the tombstones deleted since a time (newest deletion first) and those before a cutoff (oldest first)', async () => {
      for (const [index, name] of ['a.png', 'b.png', 'c.png', 'live.png'].entries())
        await assets.insert(assetRow(name, { created_at: minute(index) }));
      await assets.markDeleted('b.png', minute(20));
      await assets.markDeleted('a.png', minute(30));
      await assets.markDeleted('c.png', minute(10));
      expect(filenames(await assets.deletedSince(minute(15), 10))).toEqual(['a.png', 'b.png']);
      expect(filenames(await assets.deletedSince(minute(0), 1))).toEqual(['a.png']);
      expect(filenames(await assets.tombstonesDeletedBefore(minute(20)))).toEqual(['c.png', 'b.png']);
      expect(await assets.removeTombstone('c.png')).toBe(true);
      expect(filenames(await assets.tombstonesDeletedBefore(minute(20)))).toEqual(['b.png']);
    });

    it('keeps the thumbnail state: pending rows oldest first until ready; a broken image is failed and tombstoned once', async () => {
      await assets.insert(assetRow('a.png'));
      await assets.insert(assetRow('b.png'));
      await assets.insert(assetRow('c.png', { thumbnail_state: 'ready' }));
      expect(filenames(await assets.pendingThumbnails())).toEqual(['a.png', 'b.png']);
      await assets.setThumbnailState('a.png', 'ready');
      expect((await assets.find('a.png'))?.thumbnail_state).toBe('ready');
      await assets.markBroken('b.png', minute(40));
      await assets.markBroken('b.png', minute(50));
      expect(await assets.find('b.png')).toMatchObject({ thumbnail_state: 'failed', deleted_at: minute(40) });
      expect(await assets.pendingThumbnails()).toEqual([]);
    });

    it('groups by the title a row shows now: its graph session title (a rename moves it), else its own; untitled rows apart', async () => {
      await store.graphSessions.insert({
        id: 's1',
        title: 'Trip',
        version: 1,
        graph: '{"nodes":[],"edges":[]}',
        created_at: minute(0),
        updated_at: minute(0),
      });
      await assets.insert(assetRow('linked.png', { session_id: 's1', session_title: 'Trip', created_at: minute(3) }));
      await assets.insert(assetRow('titled.png', { session_title: 'Trip', created_at: minute(2) }));
      await assets.insert(assetRow('untitled.png', { created_at: minute(1) }));
      const groups = await assets.listSessionGroups({ limit: 10 });
      expect(
        groups.map((group) => ({
          key: group.groupKey,
          title: group.sessionTitle,
          ids: JSON.parse(group.sessionIds) as string[],
          unlinked: group.unlinked,
          count: group.count,
          latestAt: group.latestAt,
        })),
      ).toEqual([
        { key: 't:Trip', title: 'Trip', ids: ['s1'], unlinked: 1, count: 2, latestAt: minute(3) },
        { key: '', title: null, ids: [], unlinked: 1, count: 1, latestAt: minute(1) },
      ]);
      expect(filenames(await assets.listGroupItems({ title: 'Trip', sessionIds: ['s1'], limit: 10 }))).toEqual([
        'linked.png',
        'titled.png',
      ]);
      const page = await assets.listSessionGroups({ limit: 1 });
      expect(
        (await assets.listSessionGroups({ limit: 10, after: { latestAt: page[0].latestAt, key: page[0].groupKey } })).map(
          (group) => group.groupKey,
        ),
      ).toEqual(['']);

      expect(await store.graphSessions.rename('s1', 'Holiday', minute(5))).toBe(true);
      expect((await assets.find('linked.png'))?.session_current_title).toBe('Holiday');
      expect((await assets.listSessionGroups({ limit: 10 })).map((group) => [group.groupKey, group.count])).toEqual([
        ['t:Holiday', 1],
        ['t:Trip', 1],
        ['', 1],
      ]);
      expect(filenames(await assets.listLive({ limit: 10, filter: { sessionTitle: 'Holiday' } }))).toEqual(['linked.png']);
      expect(filenames(await assets.listLive({ limit: 10, filter: { unlinkedTitle: 'Trip' } }))).toEqual(['titled.png']);
      expect(filenames(await assets.listLive({ limit: 10, filter: { sessionId: 's1' } }))).toEqual(['linked.png']);
      expect(filenames(await assets.listGroupItems({ title: 'Trip', sessionIds: [], limit: 10 }))).toEqual(['titled.png']);

      await store.graphSessions.markDeleted('s1', '{"nodes":[],"edges":[]}', minute(6));
      expect((await assets.listSessionGroups({ limit: 10 })).find((group) => group.groupKey === 't:Holiday')?.sessionDeleted).toBe(1);
    });
  });
}
