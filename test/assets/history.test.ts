import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetRecord } from '../../src/studio/assets.js';
import { LIMITS } from '../../src/studio/catalog/limits.js';
import { sweepExpired } from '../../src/studio/history.js';
import { getJson, seed, startAssetStudio, type TestStudio } from './helpers.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

interface Page {
  items: AssetRecord[];
  nextCursor: string | null;
}
interface Group {
  sessionTitle: string | null;
  count: number;
  latestAt: string;
  items: AssetRecord[];
  itemsNextCursor: string | null;
}
interface GroupsPage {
  groups: Group[];
  nextCursor: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

const DAY_MS = 86_400_000;

describe('history listing', () => {
  let studio: TestStudio;
  let saved: AssetRecord[];

  beforeAll(async () => {
    studio = await startAssetStudio();
    // 7 assets: sessions A (0, 3, 6), B (1, 4), none (2, 5).
    const titles = ['A', 'B', undefined];
    saved = await seed(studio, 7, { sessionTitle: (index) => titles[index % 3] });
  });
  afterAll(() => studio.stop());

  it('lists newest first and pages with an opaque cursor until nextCursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const { status, body } = await getJson<Page>(studio, `/api/history${query}`);
      expect(status).toBe(200);
      expect(body.items.length).toBeLessThanOrEqual(3);
      seen.push(...body.items.map((item) => item.filename));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(saved.map((item) => item.filename).reverse());
  });

  it('answers full records', async () => {
    const { body } = await getJson<Page>(studio, '/api/history?limit=1');
    const newest = body.items[0];
    expect(newest).toEqual(saved[6]);
    expect(newest).toMatchObject({
      format: 'png',
      width: 64,
      height: 64,
      provider: 'api',
      kind: 'generate',
      sessionTitle: 'A',
      settings: { quality: 'high' },
    });
    expect(newest.url).toBe(`/generated/${newest.filename}`);
  });

  it('refuses a limit above the page maximum, a zero limit and a forged cursor', async () => {
    const tooMany = await getJson<ErrorBody>(studio, `/api/history?limit=${LIMITS.historyPageMax + 1}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('BAD_REQUEST');
    expect((await getJson<ErrorBody>(studio, '/api/history?limit=0')).status).toBe(400);
    const forged = await getJson<ErrorBody>(studio, '/api/history?cursor=not-a-cursor');
    expect(forged.status).toBe(400);
    expect(forged.body.error.details).toMatchObject({ field: 'cursor' });
    expect((await getJson<ErrorBody>(studio, '/api/history?groupBy=month')).status).toBe(400);
  });

  it('never reads a groups cursor as an items cursor', async () => {
    const groups = await getJson<GroupsPage>(studio, '/api/history?groupBy=session&limit=1');
    expect(groups.body.nextCursor).toEqual(expect.any(String));
    const mixed = await getJson<ErrorBody>(studio, `/api/history?cursor=${encodeURIComponent(groups.body.nextCursor as string)}`);
    expect(mixed.status).toBe(400);
  });

  it('groups by session title across all assets, paging groups', async () => {
    const first = await getJson<GroupsPage>(studio, '/api/history?groupBy=session&limit=2&groupItems=2');
    expect(first.status).toBe(200);
    expect(first.body.groups.map((group) => group.sessionTitle)).toEqual(['A', null]);
    const [a, none] = first.body.groups;
    expect(a).toMatchObject({ count: 3, latestAt: saved[6].createdAt });
    expect(a.items.map((item) => item.filename)).toEqual([saved[6].filename, saved[3].filename]);
    expect(a.itemsNextCursor).toEqual(expect.any(String));
    expect(none).toMatchObject({ count: 2, latestAt: saved[5].createdAt, itemsNextCursor: null });

    const second = await getJson<GroupsPage>(
      studio,
      `/api/history?groupBy=session&limit=2&groupItems=2&cursor=${encodeURIComponent(first.body.nextCursor as string)}`,
    );
    expect(second.body.groups.map((group) => [group.sessionTitle, group.count])).toEqual([['B', 2]]);
    expect(second.body.nextCursor).toBeNull();

    // The rest of group A continues with its items cursor and the session filter.
    const rest = await getJson<Page>(studio, `/api/history?session=A&limit=2&cursor=${encodeURIComponent(a.itemsNextCursor as string)}`);
    expect(rest.body.items.map((item) => item.filename)).toEqual([saved[0].filename]);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('filters one session; an empty session selects the assets without a title', async () => {
    const b = await getJson<Page>(studio, '/api/history?session=B');
    expect(b.body.items.map((item) => item.filename)).toEqual([saved[4].filename, saved[1].filename]);
    const none = await getJson<Page>(studio, '/api/history?session=');
    expect(none.body.items.map((item) => item.filename)).toEqual([saved[5].filename, saved[2].filename]);
    expect((await getJson<ErrorBody>(studio, '/api/history?groupBy=session&session=A')).status).toBe(400);
  });
});

describe('tombstones, restore and retention', () => {
  let studio: TestStudio;

  beforeAll(async () => {
    studio = await startAssetStudio({ SVC_HISTORY_RETENTION_DAYS: '2' });
  });
  afterAll(() => studio.stop());

  it('tombstones an asset: it leaves the list and the files, its files stay on disk', async () => {
    const [kept, doomed] = await seed(studio, 2, { start: '2025-04-01T00:00:00.000Z', prompt: (index) => `tombstone ${index}` });
    const response = await studio.request(`/api/history/${doomed.filename}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    const tombstone = (await response.json()) as { filename: string; deletedAt: string; restorableUntil: string };
    expect(tombstone.filename).toBe(doomed.filename);
    expect(new Date(tombstone.restorableUntil).getTime() - new Date(tombstone.deletedAt).getTime()).toBe(2 * DAY_MS);

    const list = await getJson<Page>(studio, '/api/history');
    expect(list.body.items.map((item) => item.filename)).toEqual([kept.filename]);
    expect((await studio.request(doomed.url)).status).toBe(404);
    expect((await studio.request(doomed.thumbnailUrl)).status).toBe(404);
    const single = await getJson<ErrorBody>(studio, `/api/history/${doomed.filename}`);
    expect(single.status).toBe(404);
    expect(single.body.error.details).toMatchObject({ deletedAt: tombstone.deletedAt, restorableUntil: tombstone.restorableUntil });
    expect(existsSync(join(studio.ctx.paths.generatedDir, doomed.filename))).toBe(true);

    // Deleting again answers the same tombstone.
    const again = await getJson<typeof tombstone>(studio, `/api/history/${doomed.filename}`, { method: 'DELETE' });
    expect(again).toEqual({ status: 200, body: tombstone });

    const restored = await getJson<AssetRecord>(studio, `/api/history/${doomed.filename}/restore`, { method: 'POST' });
    expect(restored).toEqual({ status: 200, body: doomed });
    expect((await getJson<Page>(studio, '/api/history')).body.items.map((item) => item.filename)).toEqual([doomed.filename, kept.filename]);
    expect((await studio.request(doomed.url)).status).toBe(200);
    // Restoring a live asset is a no-op.
    expect((await getJson<AssetRecord>(studio, `/api/history/${doomed.filename}/restore`, { method: 'POST' })).status).toBe(200);
  });

  it('answers RETENTION_EXPIRED after the window, then NOT_FOUND once the sweeper purged it', async () => {
    const [asset] = await seed(studio, 1, { start: '2025-05-01T00:00:00.000Z', prompt: () => 'expiring' });
    const tombstone = (
      await getJson<{ deletedAt: string; restorableUntil: string }>(studio, `/api/history/${asset.filename}`, { method: 'DELETE' })
    ).body;
    const deletedAt = new Date(tombstone.deletedAt);

    // Before the window ends the sweeper leaves it alone.
    expect(await sweepExpired(studio.ctx, new Date(deletedAt.getTime() + DAY_MS))).toBe(0);
    // Age the tombstone past retention in the database (the clock cannot be moved over HTTP).
    embeddedDatabase(studio.ctx)
      .prepare('UPDATE assets SET deleted_at = ? WHERE filename = ?')
      .run(new Date(Date.now() - 3 * DAY_MS).toISOString(), asset.filename);

    const expired = await getJson<ErrorBody>(studio, `/api/history/${asset.filename}/restore`, { method: 'POST' });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('RETENTION_EXPIRED');

    const imagePath = join(studio.ctx.paths.generatedDir, asset.filename);
    const thumbnailPath = join(studio.ctx.paths.thumbnailsDir, asset.thumbnailUrl.split('/').pop() as string);
    expect(existsSync(imagePath) && existsSync(thumbnailPath)).toBe(true);
    expect(await sweepExpired(studio.ctx, new Date())).toBe(1);
    expect(existsSync(imagePath) || existsSync(thumbnailPath)).toBe(false);

    const purged = await getJson<ErrorBody>(studio, `/api/history/${asset.filename}/restore`, { method: 'POST' });
    expect(purged.status).toBe(404);
    expect(purged.body.error.code).toBe('NOT_FOUND');
    expect((await getJson<ErrorBody>(studio, `/api/history/${asset.filename}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('sweeps with a future clock: only tombstones past retention go, live assets stay', async () => {
    const [live, dead] = await seed(studio, 2, { start: '2025-06-01T00:00:00.000Z', prompt: (index) => `sweep ${index}` });
    await studio.request(`/api/history/${dead.filename}`, { method: 'DELETE' });
    const later = new Date(Date.now() + 3 * DAY_MS);
    expect(await sweepExpired(studio.ctx, later)).toBe(1);
    expect((await studio.request(`/api/history/${dead.filename}/restore`, { method: 'POST' })).status).toBe(404);
    expect((await studio.request(`/api/history/${live.filename}`)).status).toBe(200);
    expect(existsSync(join(studio.ctx.paths.generatedDir, live.filename))).toBe(true);
  });

  it('answers NOT_FOUND for an unknown asset', async () => {
    for (const [method, path] of [
      ['GET', '/api/history/20250101-000000-nothing-0000000000.png'],
      ['DELETE', '/api/history/20250101-000000-nothing-0000000000.png'],
      ['POST', '/api/history/20250101-000000-nothing-0000000000.png/restore'],
    ] as const) {
      const { status, body } = await getJson<ErrorBody>(studio, path, { method });
      expect(status).toBe(404);
      expect(body.error.code).toBe('NOT_FOUND');
    }
  });
});

describe('retention from the config file', () => {
  it('uses historyRetentionDays from settings when the environment does not set it', async () => {
    const studio = await startAssetStudio();
    try {
      studio.ctx.settings.update((draft) => {
        draft.historyRetentionDays = 1;
      });
      const [asset] = await seed(studio, 1);
      const { body } = await getJson<{ deletedAt: string; restorableUntil: string }>(studio, `/api/history/${asset.filename}`, {
        method: 'DELETE',
      });
      expect(new Date(body.restorableUntil).getTime() - new Date(body.deletedAt).getTime()).toBe(DAY_MS);
    } finally {
      await studio.stop();
    }
  });
});

describe('history survives a restart', () => {
  it('lists the same assets after the server is started again on the same home', async () => {
    const first = await startAssetStudio();
    const home = first.home;
    const saved = await seed(first, 2);
    await first.close();
    const second = await startAssetStudio({ SVC_HOME: home });
    try {
      const { body } = await getJson<Page>(second, '/api/history');
      expect(body.items.map((item) => item.filename)).toEqual(saved.map((item) => item.filename).reverse());
      expect((await second.request(saved[0].url)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});

describe('paging with equal creation times', () => {
  it('breaks ties by save order, so no asset is skipped or repeated across pages', async () => {
    const studio = await startAssetStudio();
    try {
      const saved: AssetRecord[] = [];
      for (let index = 0; index < 5; index += 1) {
        saved.push(...(await seed(studio, 1, { start: '2025-08-01T00:00:00.000Z', sessionTitle: () => (index % 2 ? 'odd' : 'even') })));
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 5; page += 1) {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const { body } = await getJson<Page>(studio, `/api/history?limit=2${query}`);
        seen.push(...body.items.map((item) => item.filename));
        cursor = body.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toEqual(saved.map((item) => item.filename).reverse());

      // Two groups with the same latestAt page one at a time without loss.
      const titles: (string | null)[] = [];
      let groupCursor: string | null = null;
      for (let page = 0; page < 4; page += 1) {
        const query: string = groupCursor ? `&cursor=${encodeURIComponent(groupCursor)}` : '';
        const { body } = await getJson<GroupsPage>(studio, `/api/history?groupBy=session&limit=1${query}`);
        titles.push(...body.groups.map((group) => group.sessionTitle));
        groupCursor = body.nextCursor;
        if (!groupCursor) break;
      }
      expect(titles).toEqual(['odd', 'even']);
    } finally {
      await studio.stop();
    }
  });
});
