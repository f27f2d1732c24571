import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveAsset } from '../../src/studio/assets.js';
import { DEMO_GUIDE } from '../../src/demo/guide.js';
import { demoAcceptsKey } from '../../src/sim/suite.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { ensureStudioBuild } from './build.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// The server additions issue 29's web items read, as a plain HTTP client sees
// them on a studio without the demo: Recently deleted (the tombstones within
// retention), the demo guide (absent here), the not-found page.

interface Deleted {
  items: Array<{ filename: string; prompt: string; deletedAt: string; restorableUntil: string }>;
}

describe('routes behind the first hour’s web items', () => {
  let studio: TestStudio;

  beforeAll(async () => {
    await ensureStudioBuild();
    studio = await startTestStudio({ env: { SVC_HISTORY_RETENTION_DAYS: '2' } });
  }, 120_000);

  afterAll(async () => {
    await studio?.stop();
  });

  const save = async (prompt: string) => {
    const sharp = (await import('sharp')).default;
    const bytes = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#335577' } })
      .png()
      .toBuffer();
    return saveAsset(studio.ctx, {
      bytes,
      metadata: { prompt, lane: 'api', model: 'lang-5.6-luna', requestId: `r-${prompt}`, kind: 'generate', settings: {} },
    });
  };

  it('lists the tombstones within retention, newest deletion first, and forgets a restored one', async () => {
    const first = await save('first to go');
    const second = await save('second to go');
    const kept = await save('kept');
    expect((await studio.request(`/api/history/${first.filename}`, { method: 'DELETE' })).status).toBe(200);
    expect((await studio.request(`/api/history/${second.filename}`, { method: 'DELETE' })).status).toBe(200);

    const listed = (await (await studio.request('/api/history/deleted')).json()) as Deleted;
    expect(listed.items.map((item) => item.prompt)).toEqual(['second to go', 'first to go']);
    const [newest] = listed.items;
    expect(new Date(newest?.restorableUntil ?? 0).getTime() - new Date(newest?.deletedAt ?? 0).getTime()).toBe(2 * 24 * 60 * 60 * 1000);
    expect(listed.items.some((item) => item.filename === kept.filename)).toBe(false);

    // Past retention (a deletion dated three days back) it is no longer listed.
    embeddedDatabase(studio.ctx)
      .prepare('UPDATE assets SET deleted_at = ? WHERE filename = ?')
      .run(new Date(Date.now() - 3 * 24 * 60 * 60 * 1000).toISOString(), first.filename);
    expect(((await (await studio.request('/api/history/deleted')).json()) as Deleted).items.map((item) => item.prompt)).toEqual([
      'second to go',
    ]);

    expect((await studio.request(`/api/history/${second.filename}/restore`, { method: 'POST' })).status).toBe(200);
    expect(((await (await studio.request('/api/history/deleted')).json()) as Deleted).items).toEqual([]);
  });

  it('has no demo guide without the demo, and the guide names the rule the demo applies', async () => {
    const answer = await studio.request('/api/demo');
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect(demoAcceptsKey(`sk-${DEMO_GUIDE.rejectedKey.contains.toUpperCase()}-1`)).toBe(false);
    expect(demoAcceptsKey('sk-anything-else')).toBe(true);
    expect(DEMO_GUIDE.triggers['api, oauth']).toContain('moderation');
  });

  it('answers a browser’s unknown page with the app (404), and anything else with ROUTE_NOT_FOUND', async () => {
    const page = await studio.request('/no/such/page', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type') ?? '').toMatch(/^text\/html/);
    expect(await page.text()).toContain('<div id="root">');
    const json = await studio.request('/no/such/page');
    expect(json.status).toBe(404);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
    const api = await studio.request('/api/no-such-thing', { headers: { accept: 'text/html' } });
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('serves the app’s icon at /favicon.ico, where a browser looks on a page that names none (issue 46)', async () => {
    const icon = await studio.request('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
  });
});
