import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetRecord, CapabilitiesBody, GenerationResult } from '../../src/studio/api/index.js';
import { saveAsset } from '../../src/studio/assets.js';
import { launchBrowser, openApp, screenshot, seedHistory, startDemoStudio, type DemoStudio } from './helpers.js';

// 150 images (four cursor pages of 48): every tenth prompt has "zebra" (15),
// every third is from the oauth lane, every fifth belongs to the session
// "Harbour study" (30).
const SEEDED = 150;
const seed = (index: number) => ({
  prompt: index % 10 === 0 ? `zebra crossing number ${index}` : `landscape number ${index}`,
  lane: index % 3 === 0 ? 'oauth' : 'api',
  session: index % 5 === 0 ? 'Harbour study' : undefined,
});

const gallery = (page: Page) => page.locator('.gallery');
const loaded = async (page: Page) => Number(await gallery(page).getAttribute('data-loaded'));
const tile = (page: Page, prompt: string) => page.locator(`.tile[aria-label="${prompt}"]`);

/** The file names of the tiles once the listing has settled on exactly these (newest first). */
async function showsOnly(page: Page, filenames: string[]): Promise<string[]> {
  await page.waitForFunction(
    (expected) =>
      document.querySelector('.gallery')?.getAttribute('data-loading') === 'false' &&
      document.querySelector('.gallery')?.getAttribute('data-has-more') === 'false' &&
      JSON.stringify(Array.from(document.querySelectorAll<HTMLElement>('.tile'), (element) => element.dataset.filename)) ===
        JSON.stringify(expected),
    filenames,
  );
  return page.locator('.tile').evaluateAll((tiles) => tiles.map((element) => (element as HTMLElement).dataset.filename ?? ''));
}

/** A day of this computer's calendar as a date input takes it, `days` from today. */
function localDay(days: number): string {
  const day = new Date();
  day.setDate(day.getDate() + days);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

async function openDetail(page: Page, prompt: string): Promise<void> {
  await tile(page, prompt).click();
  await page.locator('.detail .detail-prompt', { hasText: prompt }).waitFor();
}

describe('History and Settings in chromium against a demo studio', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;
  let emptyPath: string;

  beforeAll(async () => {
    // No programs on the studio's PATH: "Open folder" cannot start a file manager on this machine.
    emptyPath = mkdtempSync(join(tmpdir(), 'svc-web-path-'));
    studio = await startDemoStudio({ path: emptyPath });
    await seedHistory(studio.studio, SEEDED, seed);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openApp(page, `${studio.url}/history`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    rmSync(emptyPath, { recursive: true, force: true });
  });

  it('lists newest first and loads the next cursor pages when scrolled to the end, keeping only nearby rows in the page', async () => {
    await page.waitForSelector('.gallery[data-has-more="true"][data-loading="false"]');
    expect(await page.locator('.tile').first().getAttribute('aria-label')).toBe(`landscape number ${SEEDED - 1}`);
    const before = await loaded(page);
    // The first page and at most the one after it (fetched ahead when the first does not reach far below the view).
    expect([48, 96]).toContain(before);
    while ((await gallery(page).getAttribute('data-has-more')) === 'true') {
      const count = await loaded(page);
      await gallery(page).evaluate((element) => element.scrollTo(0, element.scrollHeight));
      await page.waitForFunction((previous) => Number(document.querySelector('.gallery')?.getAttribute('data-loaded')) > previous, count);
    }
    expect(await loaded(page)).toBe(SEEDED);
    await gallery(page).evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await tile(page, 'zebra crossing number 0').waitFor();
    // Virtualized: the rows scrolled far away are not in the DOM.
    expect(await page.locator('.tile[data-index="0"]').count()).toBe(0);
    expect(Number(await gallery(page).getAttribute('data-rendered'))).toBeLessThan(SEEDED);
    await gallery(page).evaluate((element) => element.scrollTo(0, 0));
  });

  it('narrows by search words and by lane', async () => {
    await page.fill('#history-search', 'zebra');
    await page.waitForSelector('.gallery[data-loaded="15"][data-has-more="false"]');
    expect(
      (await page.locator('.tile').evaluateAll((tiles) => tiles.map((element) => element.getAttribute('aria-label')))).every((label) =>
        label?.startsWith('zebra crossing'),
      ),
    ).toBe(true);
    await page.selectOption('#history-lane', 'oauth');
    await page.waitForSelector('.gallery[data-loaded="5"]');
    expect(await page.locator('.tile').evaluateAll((tiles) => tiles.map((element) => element.getAttribute('aria-label')))).toEqual(
      [120, 90, 60, 30, 0].map((index) => `zebra crossing number ${index}`),
    );
    await page.fill('#history-search', 'nothing like this');
    await page.locator('.gallery .empty', { hasText: 'No image matches.' }).waitFor();
    await page.fill('#history-search', '');
    await page.selectOption('#history-lane', '');
    await page.waitForSelector(`.tile[data-index="0"][aria-label="landscape number ${SEEDED - 1}"]`);
  });

  it('groups by session, with a way to see all of a group', async () => {
    await page.check('#history-grouped');
    await page.locator('.gallery-header', { hasText: 'Harbour study' }).waitFor();
    expect(await page.locator('.gallery-header', { hasText: 'Harbour study' }).textContent()).toContain('(30)');
    expect(await page.locator('.gallery-header', { hasText: 'No session' }).textContent()).toContain(`(${SEEDED - 30})`);
    await page.click('button:has-text("Show all 30 of Harbour study")');
    await page.locator('.filter-chip', { hasText: 'Harbour study' }).waitFor();
    await page.waitForSelector('.gallery[data-loaded="30"][data-has-more="false"]');
    await page.click('.filter-chip button');
    await page.waitForSelector(`.tile[data-index="0"][aria-label="landscape number ${SEEDED - 1}"]`);
  });

  it('shows an image with how it was made, and offers download', async () => {
    await openDetail(page, 'landscape number 147');
    const detail = page.locator('.detail');
    // The job's record is read after the detail opens ('…' until it answers; slow on a loaded machine).
    await detail.locator('dd', { hasText: 'Not known any more' }).waitFor({ timeout: 10_000 });
    const facts = Object.fromEntries(
      await detail
        .locator('.facts > dt')
        .evaluateAll((terms) => terms.map((term) => [term.textContent ?? '', term.nextElementSibling?.textContent ?? ''])),
    ) as Record<string, string>;
    expect(facts.Prompt).toBe('landscape number 147');
    expect(facts['Revised prompt']).toBe('A simulated image of landscape number 147');
    expect(facts.Lane).toBe('oauth');
    expect(facts.Model).toBe('lang-6-luna');
    expect(facts.Image).toContain('96×64 PNG');
    expect(facts.Settings).toContain('size1536x1024');
    expect(facts.Settings).toContain('reasoningmedium');
    expect(facts['Cost and time']).toContain('Not known any more');
    const download = detail.locator('a', { hasText: 'Download' });
    expect(await download.getAttribute('href')).toMatch(/^\/generated\/20260101-120227-landscape-number-147-[0-9a-f]{10}\.png$/);
    expect(await download.getAttribute('download')).toMatch(/landscape-number-147/);
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>('.detail .image-frame img');
      return image !== null && image.complete && image.naturalWidth === 96;
    });
    await screenshot(page, 'history');
  });

  it('deletes an image, and Undo restores it', async () => {
    await openDetail(page, 'landscape number 148');
    const href = (await page.locator('.detail a', { hasText: 'Download' }).getAttribute('href')) as string;
    const filename = href.split('/').pop() as string;
    await page.click('.detail button:text-is("Delete")');
    await page.locator('.toast', { hasText: 'Image deleted.' }).waitFor();
    await tile(page, 'landscape number 148').waitFor({ state: 'detached' });
    expect(await page.locator('.detail').count()).toBe(0);
    expect((await fetch(`${studio.url}/api/history/${filename}`)).status).toBe(404);

    await page.click('.toast button:has-text("Undo")');
    await tile(page, 'landscape number 148').waitFor();
    expect((await fetch(`${studio.url}/api/history/${filename}`)).status).toBe(200);
  });

  it('deletes an image permanently after asking: its file is gone and no restore brings it back', async () => {
    await openDetail(page, 'landscape number 145');
    const href = (await page.locator('.detail a', { hasText: 'Download' }).getAttribute('href')) as string;
    const filename = href.split('/').pop() as string;
    await page.click('.detail button:text-is("Delete permanently")');
    const ask = page.locator('.toast', { hasText: 'permanently?' });
    await ask.waitFor();
    // Asking changed nothing yet.
    expect((await fetch(`${studio.url}/api/history/${filename}`)).status).toBe(200);
    await ask.locator('button', { hasText: 'Delete permanently' }).click();
    await page.locator('.toast', { hasText: 'Deleted permanently' }).waitFor();
    await tile(page, 'landscape number 145').waitFor({ state: 'detached' });
    expect((await fetch(`${studio.url}${href}`)).status).toBe(404);
    expect((await fetch(`${studio.url}/api/history/${filename}/restore`, { method: 'POST' })).status).toBe(404);
  });

  it('remixes into the composer, asking first when the composer holds something', async () => {
    await page.click('nav a[href="/"]');
    await page.fill('#prompt', 'my own words');
    await page.click('nav a[href="/history"]');
    await openDetail(page, 'landscape number 146');
    await page.click('.detail button:has-text("Remix")');
    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Replace the composer?');
    await dialog.locator('button', { hasText: 'Keep mine' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.click('nav a[href="/"]');
    expect(await page.inputValue('#prompt')).toBe('my own words');

    await page.click('nav a[href="/history"]');
    await openDetail(page, 'landscape number 146');
    await page.click('.detail button:has-text("Remix")');
    await page.locator('dialog[open] button', { hasText: 'Replace' }).click();
    await page.waitForURL(`${studio.url}/`);
    expect(await page.inputValue('#prompt')).toBe('landscape number 146');
    expect(await page.inputValue('#lane')).toBe('api');
    expect(await page.inputValue('#model')).toBe('lang-5.6-luna');
    expect(await page.inputValue('#size')).toBe('1536x1024');
    expect(await page.inputValue('#quality')).toBe('low');
    expect(await page.inputValue('#reasoning')).toBe('medium');
  });

  it('uses an image as a reference, and another as the image to edit, then runs the edit', async () => {
    await page.click('nav a[href="/history"]');
    await openDetail(page, 'landscape number 143');
    await page.click('.detail button:has-text("Use as reference")');
    await page.locator('.toast', { hasText: 'Added to the references.' }).waitFor();
    await openDetail(page, 'landscape number 142');
    await page.click('.detail button:has-text("Edit")');
    await page.waitForURL(`${studio.url}/`);
    expect(await page.locator('.edit-target').textContent()).toContain('landscape number 142');
    expect(await page.locator('.reference[data-source="history"]').count()).toBe(1);
    // The edit's image counts against the lane's 16 input images.
    expect(await page.textContent('#reference-count')).toBe('1 of 15');
    expect(await page.textContent('.composer button[type="submit"]')).toBe('Edit');
    await page.fill('#prompt', 'paint the sky orange');
    await page.click('.composer button[type="submit"]');
    const card = page.locator('.job').first();
    await page.locator('.job[data-status="succeeded"] img[data-final]').first().waitFor();
    expect(await card.locator('.job-meta').textContent()).toContain('edit');
    const job = (await (await fetch(`${studio.url}/api/jobs/${await card.getAttribute('data-request-id')}`)).json()) as {
      request: { operation: string; inputs: { references: unknown[]; image?: unknown } };
    };
    expect(job.request.operation).toBe('edit');
    expect(job.request.inputs.references).toHaveLength(1);
    expect(job.request.inputs.image).toBeDefined();
    await page.click('.edit-target button:has-text("Stop editing")');
    await page.click('.reference .remove');
  });

  it('is usable by keyboard: labelled controls, visible focus, arrow keys in the gallery', async () => {
    await page.click('nav a[href="/"]');
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea'))
        .filter(
          (control) =>
            control.type !== 'hidden' &&
            !control.closest('.visually-hidden') &&
            control.labels?.length === 0 &&
            !control.getAttribute('aria-label'),
        )
        .map((control) => control.outerHTML),
    );
    expect(unlabelled).toEqual([]);

    await page.locator('nav a[href="/"]').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    expect(outline).not.toBe('none');

    // Tab order reaches the prompt from the top of the page.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let reached = false;
    for (let press = 0; press < 12 && !reached; press += 1) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id === 'prompt');
    }
    expect(reached).toBe(true);

    await page.click('nav a[href="/history"]');
    // The listing has the edit made above first (settled: no refetch moves the tiles under the keys).
    await page.waitForSelector('.tile[data-index="0"][aria-label="paint the sky orange"]');
    await page.focus('.tile[data-index="0"]');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.index)).toBe('1');
    await page.keyboard.press('ArrowDown');
    const cols = await page.evaluate(
      () => getComputedStyle(document.querySelector('.gallery-row') as Element).gridTemplateColumns.split(' ').length,
    );
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.index)).toBe(String(1 + cols));
    await page.keyboard.press('Enter');
    await page.locator('.detail').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('detail-title');
    await page.keyboard.press('Escape');
    await page.locator('.detail').waitFor({ state: 'detached' });
  });

  it('Settings: lanes with their state, defaults saved, storage and the folder', async () => {
    await page.click('nav a[href="/settings"]');
    await page.waitForSelector('.lane-row');
    // Every lane with the state and reason the studio reports.
    const { providers } = (await (await fetch(`${studio.url}/api/providers`)).json()) as {
      providers: Array<{ id: string; state: string; reason: string }>;
    };
    expect(await page.locator('.lane-row').count()).toBe(providers.length);
    for (const provider of providers) {
      expect(await page.getAttribute(`#lane-${provider.id}`, 'data-state')).toBe(provider.state);
      expect(await page.textContent(`#lane-${provider.id} .lane-reason`)).toBe(provider.reason);
    }
    expect(await page.locator('#lane-oauth .state-badge').textContent()).toBe('ready');

    await page.selectOption('#default-model', 'lang-6-sol');
    await page.click('button:has-text("Save defaults")');
    await page.locator('.defaults-form [role="status"]', { hasText: 'api has no lang-6-sol: it keeps lang-5.6-sol' }).waitFor();
    const defaults = (await (await fetch(`${studio.url}/api/defaults`)).json()) as {
      oauth: { model: { value: string; source: string } };
      api: { model: { value: string } };
    };
    expect(defaults.oauth.model).toEqual({ value: 'lang-6-sol', source: 'config' });
    expect(defaults.api.model.value).toBe('lang-5.6-sol');

    const storage = (await (await fetch(`${studio.url}/api/storage/status`)).json()) as {
      paths: { generated: string };
      generated: { files: number };
    };
    expect(await page.locator('.settings-section', { hasText: 'Storage' }).textContent()).toContain(`${storage.generated.files} files`);
    await page.click('button:has-text("Open folder")');
    const notice = page.locator('.settings-section .error-notice[data-code="OPENER_UNAVAILABLE"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain(storage.paths.generated);
    await page.locator('#prompt-builder #pb-backend').waitFor();
    await screenshot(page, 'settings', { fullPage: true });
  });

  // Issue 29: groups are by session title (the spec's "groups by session title"): two sessions sharing one share a group.
  it('gathers two graph sessions with one title in one group, and shows all of it', async () => {
    const sessions: string[] = [];
    for (let index = 0; index < 2; index += 1)
      sessions.push(((await (await studio.post('/api/sessions', { title: 'Twins' })).json()) as { id: string }).id);
    const sharp = (await import('sharp')).default;
    const bytes = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#446688' } })
      .png()
      .toBuffer();
    // 13 images in the first (one more than a group shows), 1 in the second; newer than the seeded ones.
    for (const [index, session] of [...Array(13).fill(sessions[0]), sessions[1]].entries()) {
      await saveAsset(studio.studio.ctx, {
        bytes,
        metadata: {
          prompt: `twin ${index}`,
          lane: 'api',
          model: 'lang-5.6-luna',
          requestId: `twin-${index}`,
          kind: 'node',
          settings: {},
          createdAt: new Date(Date.UTC(2026, 1, 1, 0, index)).toISOString(),
        },
        session: { id: session, title: 'Twins' },
      });
    }
    await page.click('nav a[href="/history"]');
    if (!(await page.isChecked('#history-grouped'))) await page.check('#history-grouped');
    const twins = page.locator('.gallery-header', { hasText: 'Twins' });
    await twins.first().waitFor();
    expect((await twins.allTextContents()).map((text) => /\((\d+)\)/.exec(text)?.[1])).toEqual(['14']);
    await page.click('button:has-text("Show all 14 of Twins")');
    await page.waitForSelector('.gallery[data-loaded="14"][data-has-more="false"]');
    expect(await page.locator('.tile').first().getAttribute('aria-label')).toBe('twin 13');
    await page.click('.filter-chip button');
  });

  it('follows the system colour scheme', async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe('rgb(246, 247, 249)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(20, 22, 26)');
    await page.click('nav a[href="/history"]');
    await openDetail(page, 'landscape number 147');
    await screenshot(page, 'history-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it("narrows by model (the lane's models), kind and date range, combined with lane and search, and clears them", async () => {
    // The three newest: an api image of a model other than the lane's default, its SVG trace, an imported file.
    const made = (await (
      await studio.post('/api/generate', { prompt: 'mango orchard at dawn', provider: 'api', model: 'lang-5.4' })
    ).json()) as GenerationResult;
    const png = made.images[0];
    expect(png).toMatchObject({ model: 'lang-5.4', kind: 'generate', format: 'png' });
    const traced = await fetch(`${studio.url}/api/assets/derived?kind=vector-svg&source=${png.filename}`, { method: 'POST' });
    expect(traced.status).toBe(201);
    const svg = (await traced.json()) as AssetRecord;
    const bytes = Buffer.from(await (await fetch(`${studio.url}${png.url}`)).arrayBuffer());
    const imported = (await (
      await studio.post('/api/assets', { data: bytes.toString('base64'), name: 'mango scan.png' })
    ).json()) as AssetRecord;
    expect(imported.kind).toBe('import');
    const capabilities = (await (await fetch(`${studio.url}/api/capabilities`)).json()) as CapabilitiesBody;
    const laneModels = (id: string) =>
      capabilities.providers.flatMap((lane) => (lane.id === id && lane.routingMode === false ? lane.models : []));
    const modelChoices = () =>
      page.locator('#history-model option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));

    await openApp(page, `${studio.url}/history`);
    await page.waitForSelector(`.tile[data-index="0"][data-filename="${imported.filename}"]`);
    expect(await page.locator('button:has-text("Clear filters")').count()).toBe(0);

    // Every model of the catalog, then only the chosen lane's.
    expect(await modelChoices()).toEqual(['', ...new Set(capabilities.models.map((model) => model.id))]);
    await page.selectOption('#history-lane', 'api');
    expect(await modelChoices()).toEqual(['', ...laneModels('api')]);
    await page.selectOption('#history-model', 'lang-5.4');
    expect(await showsOnly(page, [png.filename])).toEqual([png.filename]);
    await page.locator('button:has-text("Clear filters")').waitFor();
    // A lane without that model drops it rather than listing nothing.
    await page.selectOption('#history-lane', 'gamma');
    expect(await modelChoices()).toEqual(['', ...laneModels('gamma')]);
    expect(await page.inputValue('#history-model')).toBe('');
    await page.selectOption('#history-lane', '');

    // What it is, what made it; with the search words.
    await page.selectOption('#history-kind', 'vector-svg');
    expect(await showsOnly(page, [svg.filename])).toEqual([svg.filename]);
    await page.selectOption('#history-kind', 'import');
    expect(await showsOnly(page, [imported.filename])).toEqual([imported.filename]);
    await page.fill('#history-search', 'mango');
    await page.selectOption('#history-kind', 'image');
    expect(await showsOnly(page, [imported.filename, png.filename])).toEqual([imported.filename, png.filename]);
    await page.selectOption('#history-kind', '');
    expect(await showsOnly(page, [imported.filename, svg.filename, png.filename])).toHaveLength(3);

    // The seeded day, both ends included, with a word: its 15 zebras.
    await page.fill('#history-search', 'zebra');
    await page.fill('#history-since', '2026-01-01');
    await page.fill('#history-until', '2026-01-01');
    await page.waitForSelector('.gallery[data-loaded="15"][data-has-more="false"][data-loading="false"]');
    // A range that ends before it starts says so and lists nothing; one from tomorrow on is empty.
    await page.fill('#history-since', localDay(1));
    await page.locator('#history-range-problem', { hasText: 'ends before it starts' }).waitFor();
    await page.fill('#history-until', '');
    await page.fill('#history-search', '');
    expect(await showsOnly(page, [])).toEqual([]);
    await page.locator('.gallery .empty', { hasText: 'No image matches.' }).waitFor();

    await page.click('button:has-text("Clear filters")');
    await page.waitForSelector(`.tile[data-index="0"][data-filename="${imported.filename}"]`);
    await page.waitForSelector('.gallery[data-has-more="true"]');
    for (const id of ['#history-search', '#history-lane', '#history-model', '#history-kind', '#history-since', '#history-until'])
      expect(await page.inputValue(id), id).toBe('');
    expect(await page.locator('button:has-text("Clear filters")').count()).toBe(0);

    // At 390 px the filters fold behind a labelled button, without sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.isVisible('#history-model')).toBe(false);
    await page.click('.filters-toggle');
    expect(await page.getAttribute('.filters-toggle', 'aria-expanded')).toBe('true');
    await page.selectOption('#history-kind', 'vector-svg');
    expect(await showsOnly(page, [svg.filename])).toEqual([svg.filename]);
    expect(await page.textContent('.filters-toggle')).toBe('Filters (1)');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'history-filters-phone');
    await page.click('button:has-text("Clear filters")');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
