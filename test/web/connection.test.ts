import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';

/** The replay buffer of this studio: small, so a test can push the job's events out of it. */
const REPLAY_SIZE = 50;

describe('the live connection of the page, in chromium', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;

  const dataset = (key: string) => page.evaluate((name) => document.body.dataset[name], key);

  /** Waits until the studio has ended a job (GET /api/jobs/:id), as another client would see it. */
  async function jobEnded(requestId: string): Promise<string> {
    for (;;) {
      const job = (await (await fetch(`${studio.url}/api/jobs/${requestId}`)).json()) as { state: string };
      if (!['queued', 'running'].includes(job.state)) return job.state;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Cuts the page's event stream on the server side and keeps it from reconnecting until `restore`. */
  async function breakStream(): Promise<void> {
    await page.route('**/api/events**', (route) => route.abort());
    studio.killEventStreams();
    await page.waitForSelector('body[data-connection="reconnecting"]');
  }
  const restore = () => page.unroute('**/api/events**');

  beforeAll(async () => {
    studio = await startDemoStudio({ events: { replaySize: REPLAY_SIZE } });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openApp(page, studio.url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('resumes silently after a short break: what was missed is replayed, no notice', async () => {
    // A first job gives the page a cursor (the stream has one only once an event arrived).
    expect((await studio.post('/api/generate', { prompt: 'seen before the break', requestId: 'seen-before', async: true })).status).toBe(
      202,
    );
    await page.locator('.job[data-request-id="seen-before"][data-status="succeeded"]').waitFor();
    const reconnectsBefore = Number((await dataset('reconnects')) ?? 0);
    await breakStream();
    const requestId = 'made-while-away';
    expect((await studio.post('/api/generate', { prompt: 'made while the page was away', requestId, async: true })).status).toBe(202);
    expect(await jobEnded(requestId)).toBe('succeeded');
    expect(await page.locator(`.job[data-request-id="${requestId}"]`).count()).toBe(0);

    await restore();
    await page.waitForSelector('body[data-connection="open"]');
    // Its events came back from the cursor: the job, its steps and its image.
    const card = page.locator(`.job[data-request-id="${requestId}"][data-status="succeeded"]`);
    await card.locator('img[data-final]').waitFor();
    expect(await card.locator('.phases li[data-state="done"]').count()).toBe(5);
    expect(Number(await dataset('reconnects'))).toBeGreaterThan(reconnectsBefore);
    expect(await dataset('replayGaps')).toBeUndefined();
    expect(await dataset('noticeShown')).toBeUndefined();
    expect(await page.locator('#disconnect-notice').count()).toBe(0);
  });

  it('shows the disconnect notice only when a break outlasts 8 seconds, and hides it once back', async () => {
    await breakStream();
    const attempts = Number(await dataset('reconnects'));
    // Two failed attempts later the break is still short: no notice.
    await page.waitForFunction((count) => Number(document.body.dataset.reconnects) >= count + 2, attempts);
    expect(await page.locator('#disconnect-notice').count()).toBe(0);

    await page.locator('#disconnect-notice').waitFor({ timeout: 20_000 });
    expect(await dataset('noticeShown')).toBe('1');
    expect(await page.locator('.connection-badge').textContent()).toBe('Reconnecting…');
    await screenshot(page, 'disconnect-notice');

    await restore();
    await page.waitForSelector('body[data-connection="open"]', { timeout: 15_000 });
    await page.locator('#disconnect-notice').waitFor({ state: 'detached' });
    expect(await page.locator('.connection-badge').textContent()).toBe('Live');
  });

  it('after a replay gap, reads how its running job ended from /api/inflight and /api/jobs/:id', async () => {
    await page.fill('#prompt', '[sim:slow=1500] finished during the gap');
    await page.click('.composer button[type="submit"]');
    const card = page.locator('.job').first();
    await page.locator('.job[data-status="running"][data-phase="planning"]').first().waitFor();
    const requestId = (await card.getAttribute('data-request-id')) as string;

    await breakStream();
    expect(await jobEnded(requestId)).toBe('succeeded');
    // More events than the replay buffer holds: the job's own are gone from it.
    for (let index = 0; index <= REPLAY_SIZE; index += 1) studio.studio.ctx.events.publish('test', 'filler', { index });
    expect(await card.getAttribute('data-status')).toBe('running');

    await restore();
    await page.waitForSelector('body[data-connection="open"]');
    await page.locator(`.job[data-request-id="${requestId}"][data-status="succeeded"] img[data-final]`).waitFor();
    expect(await dataset('replayGaps')).toBe('1');
    expect(await card.locator('.revised-prompt').textContent()).toContain('finished during the gap');
  });
});
