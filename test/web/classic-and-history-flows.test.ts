import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, launchBrowser, newestJobId, openApp, startDemoStudio, type DemoStudio } from './helpers.js';

// Issue 29's bar in chromium: a failed job's error in view, a text file refused
// as a reference on drop, Remix restoring epsilon's sampler, Recently deleted
// restoring after the toast is gone, and History's URL reopening its state.

/** Whether the element is wholly inside the window as it is scrolled now. */
const inView = (page: Page, selector: string) =>
  page.evaluate((css) => {
    const box = document.querySelector(css)?.getBoundingClientRect();
    return box !== undefined && box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
  }, selector);

interface Listed {
  items: Array<{ filename: string; prompt: string; provider: string; settings: Record<string, unknown> }>;
}

describe('the first hour in chromium (issue 29 bar)', () => {
  let studio: DemoStudio;
  let browser: Browser;

  beforeAll(async () => {
    studio = await startDemoStudio();
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('shows a failed job’s error without scrolling, with Retry and no empty frame, on a desktop and on a phone', async () => {
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const page = await browser.newPage({ viewport });
      try {
        await openApp(page, studio.url);
        const id = await generate(page, '[sim:moderation] a forbidden thing');
        const card = `.job[data-request-id="${id}"]`;
        await page.locator(`${card}[data-status="failed"]`).waitFor();
        expect(await page.locator(`${card} .slot`).count()).toBe(0);
        expect(await page.locator(`${card} .error-notice`).getAttribute('data-code')).toBe('MODERATION_REFUSED');
        await page.waitForFunction((css) => {
          const box = document.querySelector(css)?.getBoundingClientRect();
          return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
        }, `${card} .error-notice`);
        expect(await inView(page, `${card} .error-notice`)).toBe(true);

        // Retry sends the same request again as a new job.
        await page.click(`${card} button.retry`);
        await page.waitForFunction((requestId) => document.querySelector('.job')?.getAttribute('data-request-id') !== requestId, id);
        const retried = await newestJobId(page);
        await page.locator(`.job[data-request-id="${retried}"][data-status="failed"]`).waitFor();
        expect(await page.locator(`.job[data-request-id="${retried}"] .job-prompt`).textContent()).toBe(
          '[sim:moderation] a forbidden thing',
        );
      } finally {
        await page.close();
      }
    }
  });

  it('refuses a text file named .png when it is dropped as a reference, and takes a real PNG', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await openApp(page, studio.url);
      const drop = async (name: string, bytes: number[]) => {
        const transfer = await page.evaluateHandle(
          ({ name: fileName, bytes: content }) => {
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array(content)], fileName, { type: 'image/png' }));
            return data;
          },
          { name, bytes },
        );
        await page.locator('[data-testid="drop-zone"]').dispatchEvent('drop', { dataTransfer: transfer });
      };
      await drop('notes.png', Array.from(Buffer.from('just some text, not an image\n')));
      await page.locator('.composer .field-problem', { hasText: 'notes.png' }).waitFor();
      expect(await page.locator('.composer .field-problem').textContent()).toContain(
        'notes.png: not PNG, JPEG or WebP (read from its bytes, not its name)',
      );
      expect(await page.locator('.reference').count()).toBe(0);

      const sharp = (await import('sharp')).default;
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 20, b: 20 } } })
        .png()
        .toBuffer();
      await drop('red.png', Array.from(png));
      await page.locator('.reference').waitFor();
      expect(await page.locator('.reference').count()).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('restores an epsilon image’s sampler and lane options on Remix', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await openApp(page, studio.url);
      await page.selectOption('#lane', 'epsilon');
      await page.selectOption('#option-sampler', 'k_dpmpp_2m');
      await page.fill('#option-steps', '12');
      const id = await generate(page, 'an epsilon lighthouse at dusk');
      await page.locator(`.job[data-request-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
      const listed = (await (await fetch(`${studio.url}/api/history?q=lighthouse`)).json()) as Listed;
      expect(listed.items[0]?.provider).toBe('epsilon');
      expect(listed.items[0]?.settings.sampler).toBe('k_dpmpp_2m');

      // A fresh page (nothing in the composer): Remix applies at once.
      await page.goto(`${studio.url}/history?asset=${encodeURIComponent(listed.items[0]?.filename ?? '')}`);
      await page.click('.detail button:has-text("Remix")');
      await page.waitForSelector('body[data-view="classic"]');
      expect(await page.inputValue('#prompt')).toBe('an epsilon lighthouse at dusk');
      expect(await page.inputValue('#lane')).toBe('epsilon');
      expect(await page.inputValue('#option-sampler')).toBe('k_dpmpp_2m');
      expect(await page.inputValue('#option-steps')).toBe('12');
    } finally {
      await page.close();
    }
  });

  it('restores a deleted image from Recently deleted after its toast is gone', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await openApp(page, studio.url);
      const id = await generate(page, 'a yellow umbrella to delete');
      await page.locator(`.job[data-request-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
      await page.click(`.job[data-request-id="${id}"] button:has-text("Details")`);
      await page.locator('.detail button:text-is("Delete")').click();
      const toast = page.locator('.toast', { hasText: 'Image deleted.' });
      await toast.waitFor();
      await toast.locator('button[aria-label="Dismiss"]').click();
      await toast.waitFor({ state: 'detached' });
      const before = (await (await fetch(`${studio.url}/api/history?q=umbrella`)).json()) as Listed;
      expect(before.items).toEqual([]);

      await page.click('a:text-is("Recently deleted")');
      const row = page.locator('.deleted-item', { hasText: 'a yellow umbrella to delete' });
      await row.waitFor();
      await row.locator('button', { hasText: 'Restore' }).click();
      await page.locator('.toast', { hasText: 'Restored.' }).waitFor();
      await row.waitFor({ state: 'detached' });
      const after = (await (await fetch(`${studio.url}/api/history?q=umbrella`)).json()) as Listed;
      expect(after.items.map((item) => item.prompt)).toEqual(['a yellow umbrella to delete']);
    } finally {
      await page.close();
    }
  });

  it('puts History’s filters and open image in its URL: a new tab at that URL reopens them, Back closes the image', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await openApp(page, studio.url);
      const id = await generate(page, 'a green kite for the link');
      await page.locator(`.job[data-request-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
      await page.click('nav a[href="/history"]');
      await page.fill('#history-search', 'kite');
      await page.waitForFunction(() => new URLSearchParams(window.location.search).get('q') === 'kite');
      const tile = page.locator('.tile[aria-label="a green kite for the link"]');
      await tile.click();
      await page.locator('.detail').waitFor();
      await page.waitForFunction(() => new URLSearchParams(window.location.search).has('asset'));
      const link = page.url();
      const filename = new URL(link).searchParams.get('asset');
      expect(filename).toMatch(/\.png$/);

      const other = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      try {
        await other.goto(link);
        await other.locator('.detail img').waitFor();
        expect(await other.inputValue('#history-search')).toBe('kite');
        expect(await other.locator('.detail img').getAttribute('src')).toContain(filename);
        // The listing is the filtered one: every tile matches the search.
        await other.locator('.tile').first().waitFor();
        const labels = await other.locator('.tile').evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute('aria-label') ?? ''));
        expect(labels.length).toBeGreaterThan(0);
        expect(labels.every((label) => label.includes('kite'))).toBe(true);
      } finally {
        await other.close();
      }

      await page.goBack();
      await page.locator('.detail').waitFor({ state: 'detached' });
      expect(new URL(page.url()).searchParams.get('q')).toBe('kite');
      expect(await page.inputValue('#history-search')).toBe('kite');
    } finally {
      await page.close();
    }
  });

  it('answers an unknown page with the app’s not-found view, and unknown API paths with the usual error', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      const response = await page.goto(`${studio.url}/no-such-page`);
      expect(response?.status()).toBe(404);
      await page.locator('.not-found h1', { hasText: 'Page not found' }).waitFor();
      expect(await page.title()).toContain('Not found');
      const api = await fetch(`${studio.url}/api/no-such-route`, { headers: { accept: 'text/html' } });
      expect(api.status).toBe(404);
      expect(((await api.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
    } finally {
      await page.close();
    }
  });
});
