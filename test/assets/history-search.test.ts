import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/common/sqlite.js';
import { saveAsset, type AssetMetadata, type AssetRecord } from '../../src/studio/assets.js';
import { startDemo } from '../../src/demo/demo.js';
import { openDatabase } from '../../src/studio/store/database.js';
import { MIGRATIONS } from '../../src/studio/store/migrations.js';
import { removeTombstone, searchExpression, searchLiveAssets } from '../../src/studio/store/assets.js';
import { makeTempHome, startTestStudio } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';
import { instantArgument } from '../../src/cli/commands/history.js';
import { getJson, makeImage, metadata, startAssetStudio, type TestStudio } from './helpers.js';

// History at scale, functionally: full-text search over the prompt and the
// revised prompt (FTS5), the filters (lane, model, kind, session, date range),
// combined, paged with the same opaque cursors; the index kept in step with
// inserts, edits and purges; a database from before the index adopted.

interface Page {
  items: AssetRecord[];
  nextCursor: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

const START = Date.parse('2026-01-01T00:00:00.000Z');
const minute = (index: number) => new Date(START + index * 60_000).toISOString();

/** The library the tests search: index = minute of creation. */
const LIBRARY: Array<Partial<AssetMetadata> & { prompt: string; svg?: boolean }> = [
  { prompt: 'A Red fox at dawn', lane: 'api', model: 'lang-5.6-luna' },
  { prompt: 'a blue whale', lane: 'oauth', model: 'lang-5.6-terra', revisedPrompt: 'A blue whale breaching, watercolor style' },
  { prompt: 'Café terrace at night', lane: 'gamma', model: 'gamma-flux', kind: 'edit' },
  { prompt: 'red kite over hills', lane: 'api', model: 'lang-5.6-luna', kind: 'node' },
  { prompt: 'lighthouse in a storm', lane: 'oauth', model: 'lang-5.6-terra' },
  { prompt: 'the red lighthouse, traced', lane: 'api', model: 'vtracer', kind: 'vector-svg', svg: true },
  { prompt: 'green hills, red barn', lane: 'gamma', model: 'gamma-flux' },
  { prompt: 'imported photo', lane: 'import', model: 'none', kind: 'import' },
];

const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><path d="M0 0h64v64H0z" fill="#c33"/></svg>',
);

describe('history search and filters', () => {
  let studio: TestStudio;
  let saved: AssetRecord[];

  beforeAll(async () => {
    studio = await startAssetStudio();
    const png = await makeImage('png', { width: 64, height: 64 });
    saved = [];
    for (const [index, entry] of LIBRARY.entries()) {
      const { svg, ...fields } = entry;
      saved.push(
        await saveAsset(studio.ctx, {
          bytes: svg ? SVG : png,
          vector: svg,
          metadata: metadata({ requestId: `req-${index}`, createdAt: minute(index), ...fields }),
        }),
      );
    }
    await studio.ctx.derived.idle();
  });
  afterAll(() => studio.stop());

  const prompts = async (query: string): Promise<string[]> => {
    const { status, body } = await getJson<Page>(studio, `/api/history?${query}`);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.items.map((item) => item.prompt);
  };
  const refused = async (query: string): Promise<ErrorBody['error']> => {
    const { status, body } = await getJson<ErrorBody>(studio, `/api/history?${query}`);
    expect(status).toBe(400);
    return body.error;
  };

  it('finds the words of a prompt, case and accents folded, newest first', async () => {
    expect(await prompts('q=red')).toEqual([
      'green hills, red barn',
      'the red lighthouse, traced',
      'red kite over hills',
      'A Red fox at dawn',
    ]);
    expect(await prompts('q=RED%20fox')).toEqual(['A Red fox at dawn']);
    expect(await prompts('q=cafe')).toEqual(['Café terrace at night']);
    expect(await prompts(`q=${encodeURIComponent('CAFÉ terrace')}`)).toEqual(['Café terrace at night']);
  });

  it('matches a word by its beginning, and every word must appear', async () => {
    expect(await prompts('q=light')).toEqual(['the red lighthouse, traced', 'lighthouse in a storm']);
    expect(await prompts('q=light%20storm')).toEqual(['lighthouse in a storm']);
    expect(await prompts('q=whale%20fox')).toEqual([]);
    // One letter is a whole word, not the start of every word with it.
    expect(await prompts('q=a')).toEqual(['lighthouse in a storm', 'a blue whale', 'A Red fox at dawn']);
  });

  it('searches the revised prompt too', async () => {
    expect(await prompts('q=watercolor')).toEqual(['a blue whale']);
    expect(await prompts('q=breaching%20whale')).toEqual(['a blue whale']);
  });

  it('takes search syntax as plain words and refuses a query without a word', async () => {
    expect(await prompts(`q=${encodeURIComponent('red OR "whale" NEAR(')}`)).toEqual([]);
    expect(await prompts(`q=${encodeURIComponent('fox* (dawn)')}`)).toEqual(['A Red fox at dawn']);
    const error = await refused(`q=${encodeURIComponent('%*"')}`);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details?.field).toBe('q');
  });

  it('pages a search with its cursor: every match once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const { body }: { body: Page } = await getJson<Page>(
        studio,
        `/api/history?q=red&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...body.items.map((item) => item.prompt));
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(await prompts('q=red'));
    // A listing's cursor is not a search's (and the other way round).
    const listing = (await getJson<Page>(studio, '/api/history?limit=1')).body;
    expect((await refused(`q=red&cursor=${encodeURIComponent(listing.nextCursor ?? '')}`)).details?.field).toBe('cursor');
  });

  it('filters by lane, model and kind (what an asset is, or what made it)', async () => {
    expect(await prompts('provider=gamma')).toEqual(['green hills, red barn', 'Café terrace at night']);
    expect(await prompts('model=lang-5.6-terra')).toEqual(['lighthouse in a storm', 'a blue whale']);
    expect(await prompts('kind=vector-svg')).toEqual(['the red lighthouse, traced']);
    expect(await prompts('kind=image')).toHaveLength(LIBRARY.length - 1);
    expect(await prompts('kind=image')).not.toContain('the red lighthouse, traced');
    expect(await prompts('kind=video')).toEqual([]);
    expect(await prompts('kind=edit')).toEqual(['Café terrace at night']);
    expect(await prompts('kind=import')).toEqual(['imported photo']);
    const error = await refused('kind=sculpture');
    expect(error.details?.valid).toEqual(expect.arrayContaining(['image', 'video', 'vector-svg', 'generate', 'edit', 'node', 'import']));
  });

  it('filters by date range: since is inclusive, until exclusive', async () => {
    expect(await prompts(`since=${minute(5)}`)).toEqual(['imported photo', 'green hills, red barn', 'the red lighthouse, traced']);
    expect(await prompts(`until=${minute(2)}`)).toEqual(['a blue whale', 'A Red fox at dawn']);
    expect(await prompts(`since=${minute(2)}&until=${minute(4)}`)).toEqual(['red kite over hills', 'Café terrace at night']);
    expect(await prompts('since=2026-01-02')).toEqual([]);
    expect(await prompts('until=2026-01-01T00:01:00%2B00:00')).toEqual(['A Red fox at dawn']);
    expect((await refused('since=yesterday')).details?.field).toBe('since');
    expect((await refused('since=2026-13-45')).details?.field).toBe('since');
    expect((await refused(`since=${minute(4)}&until=${minute(2)}`)).message).toMatch(/since must be before until/);
  });

  it('combines filters with each other and with search', async () => {
    expect(await prompts('q=red&provider=api')).toEqual(['the red lighthouse, traced', 'red kite over hills', 'A Red fox at dawn']);
    expect(await prompts('q=red&provider=api&kind=image')).toEqual(['red kite over hills', 'A Red fox at dawn']);
    expect(await prompts(`q=red&provider=api&kind=image&since=${minute(1)}`)).toEqual(['red kite over hills']);
    expect(await prompts('provider=oauth&model=lang-5.6-terra&q=storm')).toEqual(['lighthouse in a storm']);
    expect(await prompts('provider=gamma&kind=node')).toEqual([]);
  });

  it('pages a filtered listing with its cursor', async () => {
    const first = (await getJson<Page>(studio, '/api/history?provider=api&limit=2')).body;
    const second = (await getJson<Page>(studio, `/api/history?provider=api&limit=2&cursor=${encodeURIComponent(first.nextCursor ?? '')}`))
      .body;
    expect([...first.items, ...second.items].map((item) => item.prompt)).toEqual([
      'the red lighthouse, traced',
      'red kite over hills',
      'A Red fox at dawn',
    ]);
    expect(second.nextCursor).toBeNull();
  });

  it('leaves deleted assets out of a search until they are restored', async () => {
    const fox = saved[0].filename;
    expect((await studio.request(`/api/history/${fox}`, { method: 'DELETE' })).status).toBe(200);
    expect(await prompts('q=fox')).toEqual([]);
    expect((await studio.request(`/api/history/${fox}/restore`, { method: 'POST' })).status).toBe(200);
    expect(await prompts('q=fox')).toEqual(['A Red fox at dawn']);
  });

  it('svc history ls --search with filters lists the matches and names the next page with the same flags', async () => {
    const server = ['--server', studio.url];
    const all = await runSvc([...server, '--json', 'history', 'ls', '--search', 'red', '--lane', 'api', '--kind', 'image']);
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout) as Page).items.map((item) => item.prompt)).toEqual(['red kite over hills', 'A Red fox at dawn']);

    const first = await runSvc([
      ...server,
      'history',
      'ls',
      '--search',
      'red',
      '--lane',
      'api',
      '--kind',
      'image',
      '--since',
      '3000d',
      '--limit',
      '1',
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('red kite over hills');
    const more = /more: svc history ls (.+)$/m.exec(first.stdout)?.[1];
    // A time ago is fixed to the instant it meant, so the next page lists the same window.
    expect(more).toMatch(/^--limit 1 --search red --lane api --kind image --since \d{4}-\d{2}-\d{2}T[\d:.]+Z --cursor \S+$/);
    const next = await runSvc([...server, 'history', 'ls', ...(more ?? '').split(' ')]);
    expect(next.stdout).toContain('A Red fox at dawn');
    expect(next.stdout).not.toContain('red kite over hills');

    const none = await runSvc([...server, 'history', 'ls', '--model', 'no-such-model']);
    expect(none.stdout.trim()).toBe('No images match.');
    const bad = await runSvc([...server, 'history', 'ls', '--since', 'last tuesday']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/since/);
  });

  it('reads a time ago in --since as the instant it means', () => {
    const now = Date.parse('2026-11-24T12:00:00.000Z');
    expect(instantArgument('30m', now)).toBe('2026-11-24T11:30:00.000Z');
    expect(instantArgument('12h', now)).toBe('2026-11-24T00:00:00.000Z');
    expect(instantArgument('7d', now)).toBe('2026-11-17T12:00:00.000Z');
    expect(instantArgument('2w', now)).toBe('2026-11-10T12:00:00.000Z');
    expect(instantArgument('2026-11-01', now)).toBe('2026-11-01');
  });

  it('refuses filters on the grouped listing, naming them', async () => {
    for (const filter of ['q=red', 'model=x', 'kind=image', 'since=2026-01-01', 'provider=api']) {
      const error = await refused(`groupBy=session&${filter}`);
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toMatch(/groupBy=session lists groups/);
    }
    expect((await refused('provider=nope')).details?.valid).toContain('gamma');
  });
});

describe('the search index', () => {
  it('builds the index for a library from before it, and follows edits and purges', () => {
    const file = join(makeTempHome(), 'studio.db');
    // A database as the last release left it: six migrations, rows already there.
    const before = openSqlite(file, MIGRATIONS.slice(0, 6), 'svc');
    const insert = before.prepare(
      `INSERT INTO assets (filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, revised_prompt, settings)
       VALUES (?, ?, 'png', 8, 8, 100, ?, ?, 'api', 'm', ?, 'generate', ?, '{}')`,
    );
    insert.run('one.png', 'one.webp', minute(0), 'an old harbour at dusk', 'r1', null);
    insert.run('two.png', 'two.webp', minute(1), 'a meadow', 'r2', 'a sunlit meadow with poppies');
    before.close();

    const db = openDatabase(file);
    try {
      const search = (text: string) => searchLiveAssets(db, { match: searchExpression(text) ?? '', limit: 10 }).map((row) => row.filename);
      expect(search('harbour')).toEqual(['one.png']);
      expect(search('poppies')).toEqual(['two.png']);

      db.prepare("UPDATE assets SET prompt = 'a busy port at dawn' WHERE filename = 'one.png'").run();
      expect(search('harbour')).toEqual([]);
      expect(search('port dawn')).toEqual(['one.png']);

      db.prepare("UPDATE assets SET deleted_at = ? WHERE filename = 'two.png'").run(minute(2));
      expect(search('poppies')).toEqual([]);
      expect(removeTombstone(db, 'two.png')).toBe(true);
      // The index still matches the table exactly (FTS5 checks an external-content index against its rows).
      expect(() => db.prepare("INSERT INTO assets_fts (assets_fts) VALUES ('integrity-check')").run()).not.toThrow();
      expect(db.prepare('SELECT count(*) AS n FROM assets_fts').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });
});

describe('the session groups', () => {
  const GROUPED = `SELECT CASE WHEN session_id IS NOT NULL THEN 's:' || session_id WHEN session_title IS NOT NULL THEN 't:' || session_title ELSE '' END AS k,
      COUNT(*) AS count, MAX(created_at) AS latest FROM assets WHERE deleted_at IS NULL GROUP BY k ORDER BY k`;
  const KEPT = 'SELECT group_key AS k, count, latest_at AS latest FROM asset_groups ORDER BY k';

  it('are adopted from a library made before them, then kept equal to grouping the table through inserts, deletes, restores, purges and moves', () => {
    const file = join(makeTempHome(), 'studio.db');
    const before = openSqlite(file, MIGRATIONS.slice(0, 7), 'svc');
    const insert = (db: ReturnType<typeof openSqlite>, index: number, sessionId: string | null, title: string | null, createdAt: string) =>
      db
        .prepare(
          `INSERT INTO assets (filename, thumbnail, format, width, height, bytes, created_at, prompt, lane, model, request_id, kind, session_title, session_id, settings)
           VALUES (?, ?, 'png', 8, 8, 100, ?, 'p', 'api', 'm', ?, 'generate', ?, ?, '{}')`,
        )
        .run(`f${index}.png`, `f${index}.webp`, createdAt, `r${index}`, title, sessionId);
    for (let index = 0; index < 6; index += 1)
      insert(before, index, index % 2 ? 'sess-a' : null, index % 3 ? 'Title' : null, minute(index));
    before.close();

    const db = openDatabase(file);
    try {
      expect(db.prepare(KEPT).all()).toEqual(db.prepare(GROUPED).all());
      // A fixed pseudo-random walk of every change a live row can go through.
      let state = 7;
      const random = (n: number) => (state = (state * 48_271) % 2_147_483_647) % n;
      const sessions = [null, 'sess-a', 'sess-b'];
      const titles = [null, 'Title', 'Other'];
      for (let step = 6; step < 400; step += 1) {
        const rows = db.prepare('SELECT filename, deleted_at FROM assets').all() as Array<{ filename: string; deleted_at: string | null }>;
        const some = rows[random(rows.length)];
        switch (random(6)) {
          case 0:
          case 1:
            insert(db, step, sessions[random(3)], titles[random(3)], minute(random(500)));
            break;
          case 2:
            db.prepare('UPDATE assets SET deleted_at = ? WHERE filename = ? AND deleted_at IS NULL').run(minute(step), some.filename);
            break;
          case 3:
            db.prepare('UPDATE assets SET deleted_at = NULL WHERE filename = ?').run(some.filename);
            break;
          case 4:
            db.prepare('DELETE FROM assets WHERE filename = ? AND deleted_at IS NOT NULL').run(some.filename);
            break;
          default:
            db.prepare('UPDATE assets SET session_title = ?, session_id = ?, created_at = ? WHERE filename = ?').run(
              titles[random(3)],
              sessions[random(3)],
              minute(random(500)),
              some.filename,
            );
        }
        expect(db.prepare(KEPT).all(), `after step ${step}`).toEqual(db.prepare(GROUPED).all());
      }
    } finally {
      db.close();
    }
  });
});

describe('search on a demo studio', () => {
  it('finds the image of one prompt and not the others', async () => {
    const home = makeTempHome();
    const demo = await startDemo({ SVC_HOME: home });
    const studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
    try {
      for (const prompt of ['a tangerine sailboat', 'a granite mountain', 'a quiet library']) {
        const response = await studio.request('/api/generate', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt, provider: 'api', size: '1024x1024' }),
        });
        expect(response.status).toBe(200);
      }
      const { body } = await getJson<Page>(studio, '/api/history?q=granite');
      expect(body.items.map((item) => item.prompt)).toEqual(['a granite mountain']);
    } finally {
      await studio.stop();
    }
  });
});
