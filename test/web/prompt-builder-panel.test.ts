import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';

// The prompt builder in chromium against demo studios: its panel in Classic
// and Video (the suggested prompt applied with one click, the answering
// backend as a badge), and its Settings section (a saved backend, and the
// parts an environment variable locks shown locked, with why).

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('Prompt builder in chromium against a demo studio', () => {
  let studio: DemoStudio;
  let locked: DemoStudio;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const config = async (of: DemoStudio) =>
    (await (await fetch(`${of.url}/api/prompt-builder/config`)).json()) as {
      backend: string;
      model: string | null;
      locked: { backend: boolean; model: boolean };
    };

  beforeAll(async () => {
    studio = await startDemoStudio();
    locked = await startDemoStudio({ env: { SVC_PROMPT_BUILDER_BACKEND: 'alpha' } });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: DESKTOP });
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await locked?.stop();
  });

  it('in Classic: asks, shows who answered, and applies the suggested prompt to the composer with one click', async () => {
    await page.goto(studio.url);
    await page.waitForSelector('body[data-connection="open"]');
    await page.locator('#prompt').fill('a fox');
    await page.click('.pb-fold > summary');
    const badge = page.locator('.prompt-builder .pb-badge');
    await page.waitForFunction(() => (document.querySelector('.prompt-builder .pb-badge')?.getAttribute('data-backend') ?? '') !== '');
    const routed = await badge.getAttribute('data-backend');
    await page.locator('#pb-input').fill('make it at night, in the snow');
    await page.locator('#pb-input').press('Enter');
    const suggestion = page.locator('.prompt-builder .pb-suggested').first();
    await suggestion.waitFor();
    const suggested = (await suggestion.textContent()) ?? '';
    expect(suggested).toContain('a fox');
    const answer = page.locator('.prompt-builder .pb-answer').first();
    expect(await badge.getAttribute('data-backend')).toBe(await answer.getAttribute('data-backend'));
    expect(['oauth', 'alpha', 'api', 'alpha-api']).toContain(routed);
    await page.locator('.prompt-builder button:has-text("Use this prompt")').click();
    expect(await page.locator('#prompt').inputValue()).toBe(suggested);
    await screenshot(page, 'prompt-builder');
  });

  it('in Video: the suggestion replaces the video prompt', async () => {
    await page.click('.views-nav a:has-text("Video")');
    await page.locator('#video-prompt').fill('a paper boat');
    await page.click('.pb-fold > summary');
    await page.locator('#pb-input').fill('on a rainy street');
    await page.locator('#pb-input').press('Enter');
    const suggestion = page.locator('.prompt-builder .pb-suggested').first();
    await suggestion.waitFor();
    const suggested = (await suggestion.textContent()) ?? '';
    expect(suggested).toContain('a paper boat');
    await page.locator('.prompt-builder button:has-text("Use this prompt")').click();
    expect(await page.locator('#video-prompt').inputValue()).toBe(suggested);
  });

  it('in Settings: saves a backend and model; the server keeps them', async () => {
    await page.goto(`${studio.url}/settings#prompt-builder`);
    await page.locator('#pb-backend').waitFor();
    expect(await page.locator('#pb-backend').isDisabled()).toBe(false);
    await page.selectOption('#pb-backend', 'api');
    const models = await page
      .locator('#pb-model option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value).filter(Boolean));
    expect(models.length).toBeGreaterThan(0);
    await page.selectOption('#pb-model', models[0] ?? '');
    await page.click('#prompt-builder button:has-text("Save")');
    await page.locator('#prompt-builder [role="status"]:has-text("Saved")').waitFor();
    expect(await config(studio)).toMatchObject({ backend: 'api', model: models[0] });
  });

  it('shows a part fixed by the environment as locked, with the variable that fixes it', async () => {
    await page.goto(`${locked.url}/settings#prompt-builder`);
    await page.locator('#pb-backend').waitFor();
    expect(await page.locator('#pb-backend').isDisabled()).toBe(true);
    expect(await page.locator('#pb-backend').inputValue()).toBe('alpha');
    expect(await page.locator('.pb-locked[data-locked-field="backend"]').textContent()).toContain('SVC_PROMPT_BUILDER_BACKEND');
    expect(await page.locator('#pb-model').isDisabled()).toBe(false);
    expect((await config(locked)).locked).toEqual({ backend: true, model: false });
    await page.locator('#prompt-builder').scrollIntoViewIfNeeded();
    await screenshot(page, 'prompt-builder-settings');
    await page.setViewportSize(PHONE);
    await page.goto(`${studio.url}/`);
    await page.click('.pb-fold > summary');
    await page.locator('.prompt-builder').scrollIntoViewIfNeeded();
    await screenshot(page, 'prompt-builder-phone', { fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    expect(pageErrors).toEqual([]);
  });
});
