import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, launchBrowser, openApp, startDemoStudio, type DemoStudio } from './helpers.js';

// Issue 29's web items beyond the bar, in chromium against a demo studio:
// validation from the catalog (option ranges, alpha's Fast/Best and native
// size, no drop zone where a lane takes no references), reproducibility (the
// seed a lane reports, an edit's source, a dropped studio PNG's settings), the
// gallery (captions, lightbox, several at once), the demo badge, shortcuts,
// Settings' section links, and lane status (cooldown end, auto moving on).

interface Asset {
  filename: string;
  prompt: string;
  provider: string;
  url: string;
  derivedFrom: string | null;
  settings: Record<string, unknown>;
}

const finished = (page: Page, id: string, status = 'succeeded') =>
  page.locator(`.job[data-request-id="${id}"][data-status="${status}"]`).waitFor({ timeout: 30_000 });

describe('the first hour in chromium: the web UI items of issue 29', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;

  const listed = async (q: string): Promise<Asset[]> =>
    ((await (await fetch(`${studio.url}/api/history?q=${encodeURIComponent(q)}`)).json()) as { items: Asset[] }).items;

  beforeAll(async () => {
    studio = await startDemoStudio();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openApp(page, studio.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('shows option ranges and defaults from the lane’s schema, refuses out-of-range values, and shows no drop zone on a lane without references', async () => {
    await page.selectOption('#lane', 'epsilon');
    expect(await page.locator('[data-testid="drop-zone"]').count()).toBe(0);
    expect(await page.locator('#option-steps-hint').textContent()).toContain('1–50, whole numbers; default 23');
    expect(await page.locator('#option-sampler option[value=""]').textContent()).toBe('Default (k_euler_ancestral)');
    await page.fill('#prompt', 'a lighthouse');
    await page.fill('#option-steps', '60');
    expect(await page.locator('#option-steps-problem').textContent()).toContain('must be from 1 to 50');
    expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(true);
    expect(await page.locator('#generate-blocker').textContent()).toContain('Steps: must be from 1 to 50');
    await page.fill('#option-steps', '12.5');
    expect(await page.locator('#option-steps-problem').textContent()).toContain('whole number');
    await page.fill('#option-steps', '');
    expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(false);

    await page.selectOption('#lane', 'auto');
    await page.locator('[data-testid="drop-zone"]').waitFor();
    await page.fill('#count', '2.6');
    expect(await page.inputValue('#count')).toBe('3');
    await page.fill('#count', '1');
  });

  it('offers alpha’s Fast/Best buttons and Size or native aspect ratio and resolution, never both', async () => {
    await page.selectOption('#lane', 'alpha');
    const fast = page.locator('.model-buttons button[data-model="alpha-image"]');
    const best = page.locator('.model-buttons button[data-model="alpha-image-quality"]');
    expect(await fast.textContent()).toBe('Fast');
    expect(await best.textContent()).toBe('Best');
    expect(await page.locator('#model').count()).toBe(0);
    await best.click();
    expect(await best.getAttribute('aria-pressed')).toBe('true');
    expect(await fast.getAttribute('aria-pressed')).toBe('false');

    // Size mode: the size picker, no native fields; native mode: the reverse.
    expect(await page.locator('#size').count()).toBe(1);
    expect(await page.locator('#option-aspectRatio').count()).toBe(0);
    await page.selectOption('#size', '1536x1024');
    await page.check('input[name="size-mode"][value="native"]');
    expect(await page.locator('#size').count()).toBe(0);
    await page.selectOption('#option-aspectRatio', '16:9');
    await page.selectOption('#option-resolution', '2k');

    const sent = page.waitForRequest((request) => request.url().endsWith('/api/generate') && request.method() === 'POST');
    const id = await generate(page, 'a wide alpha harbour');
    const body = (await sent).postDataJSON() as { model?: string; size?: string; options?: Record<string, unknown> };
    expect(body.model).toBe('alpha-image-quality');
    expect(body.size).toBeUndefined();
    expect(body.options).toMatchObject({ aspectRatio: '16:9', resolution: '2k' });
    await finished(page, id);

    // Back to Size: the native choice is dropped, the size is sent.
    await page.check('input[name="size-mode"][value="size"]');
    expect(await page.locator('#option-aspectRatio').count()).toBe(0);
    await page.selectOption('#size', '1024x1024');
    const again = page.waitForRequest((request) => request.url().endsWith('/api/generate') && request.method() === 'POST');
    await generate(page, 'a square alpha harbour');
    const second = (await again).postDataJSON() as { size?: string; options?: Record<string, unknown> };
    expect(second.size).toBe('1024x1024');
    expect(second.options?.aspectRatio).toBeUndefined();
    await page.selectOption('#lane', 'auto');
  });

  it('shows the elapsed time while a job runs', async () => {
    const id = await generate(page, '[sim:slow=3000] a slow kite');
    const elapsed = page.locator(`.job[data-request-id="${id}"] .elapsed`);
    await page.waitForFunction(
      (requestId) => /^[1-9]\d* s$/.test(document.querySelector(`.job[data-request-id="${requestId}"] .elapsed`)?.textContent ?? ''),
      id,
    );
    await finished(page, id);
    expect(await elapsed.count()).toBe(0);
  });

  it('records the seed epsilon reports, and Remix restores it', async () => {
    const answer = await studio.post('/api/generate', { prompt: 'an epsilon seed test', provider: 'epsilon' });
    expect(answer.status).toBe(200);
    const result = (await answer.json()) as { images: Asset[] };
    const seed = result.images[0]?.settings.seed;
    expect(typeof seed).toBe('number');
    await page.goto(`${studio.url}/history?asset=${encodeURIComponent(result.images[0]?.filename ?? '')}`);
    await page.click('.detail button:has-text("Remix")');
    await page.waitForSelector('body[data-view="classic"]');
    expect(await page.inputValue('#option-seed')).toBe(String(seed));
    await page.selectOption('#lane', 'auto');
    await page.fill('#prompt', '');
  });

  it('links an edit to its source image in History', async () => {
    const source = (await (await studio.post('/api/generate', { prompt: 'a source to edit', provider: 'api' })).json()) as {
      images: Asset[];
    };
    const sourceName = source.images[0]?.filename as string;
    const edit = await studio.post('/api/edit', { prompt: 'make it blue', provider: 'api', image: { filename: sourceName } });
    expect(edit.status).toBe(200);
    const edited = ((await edit.json()) as { images: Asset[] }).images[0] as Asset;
    expect(edited.derivedFrom).toBe(sourceName);
    await page.goto(`${studio.url}/history?asset=${encodeURIComponent(edited.filename)}`);
    const link = page.locator(`.detail button[data-derived-from="${sourceName}"]`);
    expect(await link.textContent()).toContain('Edited from');
    await link.click();
    await page.waitForFunction((name) => new URLSearchParams(window.location.search).get('asset') === name, sourceName);
    await page.locator('.detail-prompt', { hasText: 'a source to edit' }).waitFor();
  });

  it('offers “use its settings” for a studio PNG dropped on Classic', async () => {
    const [asset] = await listed('source to edit');
    const bytes = Buffer.from(await (await fetch(`${studio.url}${asset?.url}`)).arrayBuffer());
    await page.goto(studio.url);
    await page.waitForSelector('.jobs[data-reconciled="true"]');
    const transfer = await page.evaluateHandle((content) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(content)], 'made-here.png', { type: 'image/png' }));
      return data;
    }, Array.from(bytes));
    await page.locator('[data-testid="drop-zone"]').dispatchEvent('drop', { dataTransfer: transfer });
    const offer = page.locator('.made-offer');
    await offer.waitFor();
    expect(await offer.textContent()).toContain('made-here.png was made by the studio (api');
    await offer.locator('button', { hasText: 'Use its settings' }).click();
    expect(await page.inputValue('#prompt')).toBe('a source to edit');
    expect(await page.inputValue('#lane')).toBe('api');
    expect(await page.locator('.reference').count()).toBe(1);
    await page.click('.reference button.remove');
    await page.fill('#prompt', '');
    await page.selectOption('#lane', 'auto');
  });

  it('gallery: the whole image with a caption on hover, a lightbox with zoom and arrow keys, several deleted and restored at once', async () => {
    for (const prompt of ['gallery one', 'gallery two', 'gallery three'])
      expect((await studio.post('/api/generate', { prompt, provider: 'api' })).status).toBe(200);
    await page.goto(`${studio.url}/history?q=gallery`);
    const tiles = page.locator('.tile');
    await page.waitForFunction(() => document.querySelectorAll('.tile').length === 3);
    expect(
      await tiles
        .first()
        .locator('img')
        .evaluate((image) => getComputedStyle(image).objectFit),
    ).toBe('contain');
    await tiles.first().hover();
    await page.waitForFunction(() => getComputedStyle(document.querySelector('.tile:hover .tile-caption') as Element).opacity === '1');
    expect(await tiles.first().locator('.tile-caption').textContent()).toContain('gallery three');
    expect(await tiles.first().locator('.tile-caption').textContent()).toContain('api');

    await tiles.first().click();
    await page.click('.detail button:text-is("Full size")');
    const lightbox = page.locator('dialog.lightbox[open]');
    await lightbox.waitFor();
    expect(await lightbox.getAttribute('data-index')).toBe('0');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('dialog.lightbox')?.getAttribute('data-index') === '1');
    expect(await lightbox.locator('.lightbox-title').textContent()).toBe('gallery two');
    expect(new URL(page.url()).searchParams.get('asset')).toBe(await tiles.nth(1).getAttribute('data-filename'));
    await page.keyboard.press('+');
    expect(await lightbox.getAttribute('data-zoom')).toBe('2');
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'detached' });

    await page.click('button:text-is("Select several")');
    await tiles.nth(0).click();
    await tiles.nth(2).click();
    expect(await page.locator('.selection-bar').getAttribute('data-count')).toBe('2');
    await page.click('.selection-bar button:text-is("Delete")');
    const toast = page.locator('.toast', { hasText: '2 images deleted.' });
    await toast.waitFor();
    expect((await listed('gallery')).map((asset) => asset.prompt)).toEqual(['gallery two']);
    await toast.locator('button', { hasText: 'Undo' }).click();
    await expect.poll(async () => (await listed('gallery')).length, { timeout: 10_000 }).toBe(3);
  });

  it('lists the simulator’s prompt tags and the rejected-key rule under the demo badge', async () => {
    await page.click('button.demo-badge');
    const guide = page.locator('#demo-guide');
    await guide.locator('.demo-triggers').waitFor();
    expect(await guide.locator('.demo-rejected').textContent()).toContain('"rejected"');
    const apiTags = await guide
      .locator('.demo-triggers div', { has: page.locator('dt', { hasText: 'api, oauth' }) })
      .locator('code')
      .allTextContents();
    expect(apiTags).toContain('[sim:moderation]');
    expect(apiTags).toContain('[sim:corrupt-image]');
    const epsilonTags = await guide
      .locator('.demo-triggers div', { has: page.locator('dt', { hasText: /^epsilon$/ }) })
      .locator('code')
      .allTextContents();
    expect(epsilonTags).toContain('[sim:zip-not-png]');
    await page.click('#demo-guide button:text-is("Close")');
  });

  it('opens the shortcuts overlay with ?, and links Settings’ sections', async () => {
    await page.goto(`${studio.url}/settings`);
    await page.locator('.section-links a').first().waitFor();
    const sections = await page.locator('.section-links a').allTextContents();
    expect(sections).toEqual(expect.arrayContaining(['Lanes', 'Keys', 'Storage']));
    await page.click('.section-links a:text-is("Storage")');
    await page.waitForFunction(() => window.location.hash === '#storage');
    await page.keyboard.press('?');
    const overlay = page.locator('dialog.shortcuts[open]');
    await overlay.waitFor();
    expect(await overlay.textContent()).toContain('Ctrl+Enter');
    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
  });

  it('shows when a rate-limited lane is back, on the card and in the lane picker, and says when auto moved to another lane', async () => {
    await page.goto(studio.url);
    await page.waitForSelector('.jobs[data-reconciled="true"]');
    // A client's request hits the vendor's rate limit (its reset in 90 s): its card on this page says until when.
    // oauth is first in auto's order, so auto then passes over it.
    const answer = await studio.post('/api/generate', {
      prompt: '[sim:ratelimit=90000] a kite that hits the rate limit',
      provider: 'oauth',
    });
    expect(answer.status).toBe(429);
    const card = page.locator('.job[data-status="failed"]', { hasText: 'a kite that hits the rate limit' });
    const note = card.locator('.cooldown-note');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/oauth is cooling down until \d{1,2}[:.]\d{2}/);
    const option = await page.locator('#lane option[value="oauth"]').textContent();
    expect(option).toMatch(/cooling down until \d{1,2}[:.]\d{2}/);

    await page.selectOption('#lane', 'auto');
    const moved = await generate(page, 'a kite auto sends elsewhere');
    await finished(page, moved);
    const routing = page.locator(`.job[data-request-id="${moved}"] .routing-note`);
    expect(await routing.textContent()).toMatch(/^Auto moved to [a-z-]+: oauth \(/);
  }, 60_000);
});
