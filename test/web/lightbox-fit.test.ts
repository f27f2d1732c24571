import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, startDemoStudio, type DemoStudio } from './helpers.js';

// Issue 46, item 9: the lightbox opened a 1024² image at its natural size, cut off in a 900 px
// window. It opens fitted: the whole image in the window; zoom 2× is then larger than fitted.

describe('the lightbox', () => {
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

  it('opens a 1024² image fitted in a 900 px high window', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await openApp(page, studio.url);
      expect((await studio.post('/api/generate', { prompt: 'a fitted lighthouse', provider: 'gamma', size: '1024x1024' })).status).toBe(
        200,
      );
      await page.goto(`${studio.url}/history?q=fitted`);
      await page.locator('.tile').first().click();
      await page.click('.detail button:text-is("Full size")');
      const image = page.locator('dialog.lightbox[open] .lightbox-stage img');
      await image.waitFor();
      await page.waitForFunction(
        () => (document.querySelector('dialog.lightbox .lightbox-stage img') as HTMLImageElement | null)?.complete === true,
      );
      const fitted = await image.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return {
          top: box.top,
          bottom: box.bottom,
          left: box.left,
          right: box.right,
          height: box.height,
          natural: (element as HTMLImageElement).naturalHeight,
        };
      });
      expect(fitted.natural).toBe(1024);
      expect(fitted.top).toBeGreaterThanOrEqual(0);
      expect(fitted.bottom).toBeLessThanOrEqual(900);
      expect(fitted.left).toBeGreaterThanOrEqual(0);
      expect(fitted.right).toBeLessThanOrEqual(1440);
      await image.click();
      await page.waitForFunction(() => document.querySelector('dialog.lightbox')?.getAttribute('data-zoom') === '2');
      expect(await image.evaluate((element) => element.getBoundingClientRect().height)).toBeGreaterThan(fitted.height);
    } finally {
      await page.close();
    }
  }, 90_000);
});
