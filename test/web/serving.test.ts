import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { ensureStudioBuild, WEB_DIR } from './build.js';
import { launchBrowser, startDemoStudio, type DemoStudio } from './helpers.js';

const asset = (extension: string) => `/assets/${readdirSync(join(WEB_DIR, 'assets')).find((name) => name.endsWith(extension))}`;

describe('the studio serves its web UI', () => {
  let studio: TestStudio;

  beforeAll(async () => {
    await ensureStudioBuild();
    studio = await startTestStudio();
  }, 60_000);

  afterAll(async () => {
    await studio?.stop();
  });

  it('answers index.html for each view, revalidated on every load, under a restrictive policy', async () => {
    for (const path of ['/', '/history', '/settings']) {
      const response = await studio.request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe');
      expect(await response.text()).toContain('<div id="root"></div>');
    }
    const first = await studio.request('/');
    const etag = first.headers.get('etag') as string;
    expect((await studio.request('/', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await studio.request('/', { method: 'HEAD' })).status).toBe(200);
  });

  it('serves the hashed assets with their types, cached for good', async () => {
    const html = await (await studio.request('/')).text();
    for (const [extension, type] of [
      ['.js', 'text/javascript; charset=utf-8'],
      ['.css', 'text/css; charset=utf-8'],
      ['.svg', 'image/svg+xml'],
    ]) {
      const path = asset(extension);
      expect(html).toContain(path);
      const response = await studio.request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('names nothing outside its assets folder', async () => {
    for (const path of [
      '/assets/nothing-here.js',
      '/assets/%2e%2e%2fpackage.json',
      '/assets/..%2F..%2Fpackage.json',
      '/assets/.hidden.js',
      '/assets/index.html',
    ]) {
      const response = await studio.request(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  it('refuses a foreign Host for the page and its assets, as for the API', async () => {
    for (const path of ['/', '/history', asset('.js'), asset('.css'), '/api/health']) {
      const refused = await rawRequest(studio.url, { path, headers: { host: 'rebind.example:3333' } });
      expect(refused.status, path).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'FORBIDDEN_HOST' } });
      const allowed = await rawRequest(studio.url, { path, headers: { host: `localhost:${studio.port}` } });
      expect(allowed.status, path).toBe(200);
    }
  });
});

describe('a studio whose web UI is not built', () => {
  let studio: TestStudio;
  let empty: string;

  beforeAll(async () => {
    empty = mkdtempSync(join(tmpdir(), 'svc-web-missing-'));
    studio = await startTestStudio({ env: { SVC_STUDIO_WEB_DIR: empty } });
  });

  afterAll(async () => {
    await studio?.stop();
    rmSync(empty, { recursive: true, force: true });
  });

  it('says how to build it: a page for a browser, the error shape for anything else', async () => {
    const page = await studio.request('/', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('npm run build');
    const json = await studio.request('/history');
    expect(json.status).toBe(503);
    expect(await json.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', details: { webDir: empty } } });
    expect((await studio.request('/api/health')).status).toBe(200);
  });
});

describe('a studio with an access token, in chromium', () => {
  const token = 'web-test-token-5b1c';
  let studio: DemoStudio;
  let browser: Browser;

  beforeAll(async () => {
    studio = await startDemoStudio({ token });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('serves the page and its files without the token, and nothing else', async () => {
    expect((await fetch(`${studio.url}/`)).status).toBe(200);
    expect((await fetch(`${studio.url}${asset('.js')}`)).status).toBe(200);
    expect((await fetch(`${studio.url}/api/capabilities`)).status).toBe(401);
    // HEAD is GET without the body: the same paths are public, the rest needs the token (issue 33, item 8).
    expect((await fetch(`${studio.url}/`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${studio.url}${asset('.js')}`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${studio.url}/api/capabilities`, { method: 'HEAD' })).status).toBe(401);
    expect((await fetch(`${studio.url}/api/capabilities?token=${token}`, { method: 'HEAD' })).status).toBe(200);
    // With a token any Host reaches the token check (a rebinding page cannot present it).
    const refused = await rawRequest(studio.url, { path: '/api/health', headers: { host: 'rebind.example' } });
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'TOKEN_REQUIRED' } });
  });

  it('works when opened as /#token=…: API calls, the event stream and images carry it', async () => {
    const page = await browser.newPage();
    await page.goto(`${studio.url}/#token=${token}`);
    await page.waitForSelector('body[data-connection="open"]');
    expect(new URL(page.url()).hash).toBe('');
    await page.fill('#prompt', 'a guarded lighthouse');
    await page.click('.composer button[type="submit"]');
    await page.locator('.job[data-status="succeeded"] img[data-final]').waitFor();
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>('.job img[data-final]');
      return image !== null && image.complete && image.naturalWidth > 0;
    });
    // Kept for this tab: a reload still works.
    await page.reload();
    await page.waitForSelector('body[data-connection="open"]');
    await page.locator('.job[data-status="succeeded"]').first().waitFor();
    await page.close();
  });

  it('tells how to give the token when the page has none', async () => {
    const page = await browser.newPage();
    await page.goto(studio.url);
    const banner = page.locator('.banner-error', { hasText: 'needs its access token' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('/#token=<SVC_TOKEN>');
    await page.close();
  });
});
