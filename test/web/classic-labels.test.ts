import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, startDemoStudio, type DemoStudio } from './helpers.js';

// Issue 46, item 9 (Classic and Settings): on Auto, pressing alpha's Fast names the lane that will
// run it at once; epsilon's options read as words, not API names; counts have their singular.

describe('Classic’s and Settings’ words', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;

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

  it('on Auto, pressing Fast says the lane that runs that model', async () => {
    await page.selectOption('#lane', 'auto');
    const reason = page.locator('.lane-reason');
    await reason.waitFor();
    expect(await reason.textContent()).toMatch(/^Runs on the first ready lane: now /);
    await page.click('button[data-model="alpha-image"]');
    await page.waitForFunction(() =>
      /with alpha-image: now .*\(alpha(-api)?\)/.test(document.querySelector('.lane-reason')?.textContent ?? ''),
    );
    await page.click('button[data-model="alpha-image"]');
    await page.waitForFunction(() => /^Runs on the first ready lane: now /.test(document.querySelector('.lane-reason')?.textContent ?? ''));
  });

  it('labels epsilon’s options in words', async () => {
    await page.selectOption('#lane', 'epsilon');
    await page.locator('label[for="option-ucPresetId"]').waitFor();
    expect(await page.locator('label[for="option-ucPresetId"]').textContent()).toContain('Undesired content preset');
    expect(await page.locator('label[for="option-cfgRescale"]').textContent()).toContain('Guidance rescale');
  });

  it('Settings counts a lane’s models with their singular', async () => {
    await page.click('nav a[href="/settings"]');
    await page.waitForSelector('.lane-row');
    const text = await page.locator('.settings').textContent();
    expect(text).not.toMatch(/\b1 models\b|\b1 input images\b/);
    expect(text).toMatch(/\b1 model\b|\b1 input image\b/);
  });
});
