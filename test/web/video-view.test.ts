import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';

// The Video view in chromium against a demo studio: pickers that offer only
// what the rules allow for the mode (from the reference count) and model; a
// storyboard edited by clicks; a video made with its progress bar moving to
// done, then played in the page; frame, analyze and extend on it; and the
// same video playing in History's detail, edited from there.

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

async function png(shade: number): Promise<Buffer> {
  const sharp = (await import('sharp')).default;
  return sharp({ create: { width: 64, height: 48, channels: 3, background: { r: shade, g: 120, b: 200 - shade } } })
    .png()
    .toBuffer();
}

const options = (page: Page, select: string) =>
  page.locator(`${select} option`).evaluateAll((elements) => elements.map((element) => (element as HTMLOptionElement).value));

/** Collects every value the job's progress bar shows until the job is done (or failed), in the page. */
function watchProgress(page: Page, requestIdPrefix: string): Promise<{ fractions: number[]; status: string }> {
  return page.evaluate(
    (prefix) =>
      new Promise<{ fractions: number[]; status: string }>((resolve) => {
        const fractions: number[] = [];
        const look = () => {
          const card = Array.from(document.querySelectorAll<HTMLElement>('.video-job')).find((element) =>
            element.dataset.requestId?.startsWith(prefix),
          );
          if (!card) return;
          const value = card.querySelector('progress')?.getAttribute('data-fraction');
          if (value !== null && value !== undefined && Number(value) !== fractions.at(-1)) fractions.push(Number(value));
          if (card.dataset.status === 'done' || card.dataset.status === 'failed') {
            observer.disconnect();
            resolve({ fractions, status: card.dataset.status });
          }
        };
        const observer = new MutationObserver(look);
        observer.observe(document.body, {
          subtree: true,
          childList: true,
          attributes: true,
          attributeFilter: ['data-fraction', 'data-status'],
        });
        look();
      }),
    requestIdPrefix,
  );
}

/** Plays the video in the page until its clock moves: the browser decoded it. */
async function plays(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate(
    (element) =>
      new Promise<number>((resolve, reject) => {
        const video = element as HTMLVideoElement;
        video.muted = true;
        video.addEventListener('error', () => reject(new Error(`the video did not load: ${video.error?.message ?? video.error?.code}`)));
        video.addEventListener('timeupdate', function moved() {
          if (video.currentTime > 0) {
            video.removeEventListener('timeupdate', moved);
            video.pause();
            resolve(video.duration);
          }
        });
        void video.play().catch(reject);
      }),
  );
}

describe('Video view in chromium against a demo studio', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;
  let made = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // Polls every 200 ms: the demo's clip (its progress rising over 3 s) reports many steps.
    studio = await startDemoStudio({ env: { SVC_VIDEO_POLL_MS: '200', SVC_MCP_POLL_MS: '300' } });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: DESKTOP });
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${studio.url}/video`);
    await page.waitForSelector('body[data-connection="open"]');
    await page.waitForSelector('.video-composer .model-buttons button');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('offers only what the rules allow for the mode and model', async () => {
    // Every video lane's models, grouped by lane (the default lane's default chosen).
    expect(
      await page
        .locator('.model-buttons[data-lane="alpha"] button')
        .evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.model)),
    ).toEqual(['alpha-video-1.5', 'alpha-video']);
    expect(await page.locator('.model-buttons[data-lane="alpha-api"] button').count()).toBe(2);
    expect(await page.locator('.model-buttons button[aria-pressed="true"]').getAttribute('data-model')).toBe('alpha-video-1.5');
    expect(await page.locator('.mode-badge').getAttribute('data-mode')).toBe('text-to-video');
    expect(await options(page, '#video-resolution')).toEqual(['480p', '720p', '1080p']);
    expect((await options(page, '#video-duration')).at(-1)).toBe('15');
    await page.selectOption('#video-resolution', '1080p');

    // The base model has no 1080p: the choice falls back to what it allows.
    await page.click('.model-buttons[data-lane="alpha"] button[data-model="alpha-video"]');
    expect(await options(page, '#video-resolution')).toEqual(['480p', '720p']);
    expect(await page.locator('#video-resolution').inputValue()).toBe('480p');

    // One image: image to video (1080p back on alpha-video-1.5); two: reference to video, 10 s on the base model, 15 on 1.5, never 1080p.
    await page.click('.model-buttons[data-lane="alpha"] button[data-model="alpha-video-1.5"]');
    await page
      .locator('.video-references input[type="file"]')
      .setInputFiles([{ name: 'one.png', mimeType: 'image/png', buffer: await png(10) }]);
    await page.locator('.mode-badge[data-mode="image-to-video"]').waitFor();
    expect(await options(page, '#video-resolution')).toEqual(['480p', '720p', '1080p']);
    await page.selectOption('#video-duration', '15');
    await page
      .locator('.video-references input[type="file"]')
      .setInputFiles([{ name: 'two.png', mimeType: 'image/png', buffer: await png(90) }]);
    await page.locator('.mode-badge[data-mode="reference-to-video"]').waitFor();
    expect(await options(page, '#video-resolution')).toEqual(['480p', '720p']);
    expect((await options(page, '#video-duration')).at(-1)).toBe('15');
    await page.click('.model-buttons[data-lane="alpha"] button[data-model="alpha-video"]');
    expect((await options(page, '#video-duration')).at(-1)).toBe('10');
    expect(await page.locator('#video-duration').inputValue()).toBe('10');

    await page.click('.video-reference-list button[aria-label="Remove one.png"]');
    await page.click('.video-reference-list button[aria-label="Remove two.png"]');
    await page.locator('.mode-badge[data-mode="text-to-video"]').waitFor();
    await page.click('.model-buttons[data-lane="alpha"] button[data-model="alpha-video-1.5"]');
  });

  it('edits a storyboard by clicks: clips added, reordered and removed, never fewer than two', async () => {
    await page.check('.storyboard-toggle input');
    const clips = page.locator('.storyboard-clip textarea');
    expect(await clips.count()).toBe(2);
    expect(await page.locator('.storyboard-clip button:has-text("Remove")').first().isDisabled()).toBe(true);
    await clips.nth(0).fill('the harbour at dawn');
    await clips.nth(1).fill('boats leave');
    await page.click('.storyboard button:has-text("Add a clip")');
    await clips.nth(2).fill('the empty harbour');
    await page.click('button[aria-label="Move clip 3 up"]');
    expect(await clips.evaluateAll((areas) => areas.map((area) => (area as HTMLTextAreaElement).value))).toEqual([
      'the harbour at dawn',
      'the empty harbour',
      'boats leave',
    ]);
    await page.click('button[aria-label="Remove clip 1"]');
    expect(await clips.evaluateAll((areas) => areas.map((area) => (area as HTMLTextAreaElement).value))).toEqual([
      'the empty harbour',
      'boats leave',
    ]);
    await page.uncheck('.storyboard-toggle input');
    expect(await page.locator('.storyboard').count()).toBe(0);
  });

  it('makes a video with its progress bar moving to done, then plays it in the page', async () => {
    await page.fill('#video-prompt', 'a lighthouse in the fog [sim:video-slow=3000]');
    await page.selectOption('#video-duration', '2');
    const watched = page
      .locator('.video-job')
      .first()
      .waitFor()
      .then(() => page.locator('.video-job').first().getAttribute('data-request-id'));
    await page.click('.video-composer button:has-text("Generate video")');
    const requestId = (await watched) ?? '';
    const progress = await watchProgress(page, requestId);
    expect(progress.status).toBe('done');
    // The bar moved: it showed values strictly between 0 and 1, rising.
    const between = progress.fractions.filter((value) => value > 0 && value < 1);
    expect(between.length).toBeGreaterThan(1);
    expect([...between].sort((a, b) => a - b)).toEqual(between);

    const player = `.video-job[data-request-id="${requestId}"] video.video-player`;
    made = (await page.locator(player).getAttribute('data-filename')) ?? '';
    expect(made).toMatch(/\.mp4$/);
    const duration = await plays(page, player);
    expect(duration).toBeGreaterThan(1.5);
    const record = (await (await fetch(`${studio.url}/api/jobs/${requestId}`)).json()) as {
      state: string;
      result: { video: { filename: string } };
    };
    expect(record).toMatchObject({ state: 'succeeded', result: { video: { filename: made } } });
    await screenshot(page, 'video');
  });

  it('shows a failed video job with its code, and hides it on request', async () => {
    await page.fill('#video-prompt', 'a storm at sea [sim:video-fail]');
    await page.selectOption('#video-duration', '1');
    await page.click('.video-composer button:has-text("Generate video")');
    const failed = page.locator('.video-job', { hasText: 'a storm at sea' });
    await failed.locator('.error-notice[data-code="VIDEO_GENERATION_FAILED"]').waitFor();
    expect(await failed.getAttribute('data-status')).toBe('failed');
    await failed.locator('button[aria-label="Hide this job"]').click();
    await failed.waitFor({ state: 'detached' });
  });

  it('runs a storyboard: the bar names each clip and moves to done, the joined video plays', async () => {
    await page.fill('#video-prompt', '');
    await page.check('.storyboard-toggle input');
    const clips = page.locator('.storyboard-clip textarea');
    await clips.nth(0).fill('a kite rises [sim:video-slow=1500]');
    await clips.nth(1).fill('the kite drifts away [sim:video-slow=1500]');
    for (const index of [0, 1]) await page.locator('.storyboard-clip select').nth(index).selectOption('1');
    const seen = page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const labels = new Set<string>();
          const observer = new MutationObserver(() => {
            const card = document.querySelector<HTMLElement>('.video-job');
            const label = card?.querySelector('.state-badge')?.textContent ?? '';
            if (label.includes('clip')) labels.add(label.replace(/^\D+· /, ''));
            if (card?.dataset.status === 'done' && card.getAttribute('aria-label')?.startsWith('Storyboard')) {
              observer.disconnect();
              resolve([...labels]);
            }
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
        }),
    );
    await page.click('.video-composer button:has-text("Generate video")');
    expect(await seen).toEqual(expect.arrayContaining(['clip 1 of 2', 'clip 2 of 2']));
    const joined = await plays(page, '.video-job[data-status="done"] video.video-player >> nth=0');
    expect(joined).toBeGreaterThan(1.5);
    await page.uncheck('.storyboard-toggle input');
  });

  it('shows a frame, analyzes, and extends the video from its card', async () => {
    const card = page.locator(`.video-job[data-status="done"]:has(video[data-filename="${made}"])`);
    await card.locator('button[data-action="frame"]').click();
    await card.locator('.video-frame select').selectOption('last');
    await card.locator('.video-frame button:has-text("Show")').click();
    const frame = card.locator('img.video-frame-image');
    await frame.waitFor();
    await page.waitForFunction(
      (element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0,
      await frame.elementHandle(),
    );

    await card.locator('button[data-action="analyze"]').click();
    await card.locator('.video-analysis dd').first().waitFor();
    expect(await card.locator('.video-analysis dt').first().textContent()).toContain('First frame');

    await card.locator('button[data-action="extend"]').click();
    await card.locator('.video-action-form textarea').fill('the fog lifts');
    await card.locator('.video-action-form input[type="number"]').fill('1');
    await card.locator('button:has-text("Start the extension")').click();
    const extension = page.locator('.video-job', { hasText: 'Extend: the fog lifts' });
    await extension.and(page.locator('[data-status="done"]')).waitFor({ timeout: 30_000 });
    const extended = await plays(page, '.video-job[data-status="done"] video.video-player >> nth=0');
    expect(extended).toBeGreaterThan(2.5);
  });

  it('plays the video in History and edits it from the detail', async () => {
    await page.click('.views-nav a:has-text("History")');
    await page.locator(`.tile[data-filename="${made}"]`).click();
    await page.locator(`.detail video.video-player[data-filename="${made}"]`).waitFor();
    expect(await plays(page, `.detail video.video-player`)).toBeGreaterThan(1.5);
    expect(await page.locator('.detail button:has-text("Remix")').count()).toBe(0);
    await page.locator('.detail button[data-action="edit"]').click();
    await page.locator('.detail .video-action-form textarea').fill('make it night');
    await page.locator('.detail button:has-text("Start the edit")').click();
    await page.locator('.toast button:has-text("Follow it in Video")').click();
    await page
      .locator('.video-job', { hasText: 'Edit: make it night' })
      .and(page.locator('[data-status="done"]'))
      .waitFor({ timeout: 30_000 });
  });

  it('survives a reload with its jobs and fits a phone', async () => {
    await page.reload();
    await page.locator('.video-job[data-status="done"]').nth(3).waitFor();
    expect(await page.locator('.video-job').count()).toBe(4);
    await page.setViewportSize(PHONE);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'video-phone', { fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    expect(pageErrors).toEqual([]);
  });

  it("offers zeta's video models in their own group, with their own limits; one generates and plays", async () => {
    const zeta = page.locator('.model-buttons[data-lane="zeta"] button');
    expect(await zeta.evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.model))).toEqual(
      expect.arrayContaining(['seedance-2', 'veo-3.1', 'kling-3-pro']),
    );
    await page.click('.model-buttons[data-lane="zeta"] button[data-model="veo-3.1"]');
    expect(await options(page, '#video-duration')).toEqual(['4', '6', '8']);
    expect(await options(page, '#video-resolution')).toEqual(['720p', '1080p']);
    expect(await options(page, '#video-aspect')).toEqual(['', '16:9', '9:16', '1:1']);
    await page.click('.model-buttons[data-lane="zeta"] button[data-model="seedance-2"]');
    expect(await page.locator('.model-buttons button[aria-pressed="true"]').getAttribute('data-lane')).toBe('zeta');
    expect((await options(page, '#video-duration'))[0]).toBe('4');
    await page.selectOption('#video-duration', '4');
    await page.fill('#video-prompt', 'a kite over the dunes');
    const before = await page.locator('.video-job').count();
    await page.click('.video-composer button:has-text("Generate video")');
    // A new job's card is at the top of the list.
    await page.locator('.video-job').nth(before).waitFor();
    const requestId = (await page.locator('.video-job').first().getAttribute('data-request-id')) ?? '';
    const card = page.locator(`.video-job[data-request-id="${requestId}"]`);
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
    expect(await plays(page, `.video-job[data-request-id="${requestId}"] video.video-player`)).toBeGreaterThan(3);
    const record = (await (await fetch(`${studio.url}/api/jobs/${requestId}`)).json()) as { result: { provider: string; model: string } };
    expect(record.result).toMatchObject({ provider: 'zeta', model: 'seedance-2' });
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
