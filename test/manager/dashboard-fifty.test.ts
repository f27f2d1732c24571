import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { ensureManagerBuild, webDir as builtWebDir } from '../web/build.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from '../chat/helpers.js';
import { startTestManager, type TestManager } from './helpers.js';

/** The manager bench's figure (bench/manager.ts): one manager, 50 workers. */
const WORKERS = 50;

describe(`the manager dashboard with ${WORKERS} workers`, () => {
  // The real dashboard, built as `npm run build` builds it (rebuilt when a source is newer).
  const webDir = builtWebDir('manager');
  const workers: TestChatServer[] = [];
  let manager: TestManager;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensureManagerBuild();
    for (let index = 0; index < WORKERS; index += 1) workers.push(await startTestChat());
    // Each says something before the manager follows it: the page must show it from the backlog.
    await Promise.all(workers.map((worker, index) => worker.postLines('/api/message', { prompt: `worker ${index} was here` })));
    manager = await startTestManager({ webDir, workers: workers.map((worker) => worker.url) });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(manager.url);
    await page.waitForSelector('.app[data-ready="true"][data-channel="open"]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await manager?.stop();
    await Promise.all(workers.map((worker) => worker.stop()));
  }, 60_000);

  it('shows every worker online with its own last message and backlog, and the counts', async () => {
    await page.waitForFunction((count) => document.querySelectorAll('.card[data-health="online"]').length === count, WORKERS, { timeout: 30_000 });
    expect(await page.textContent('.counts')).toBe(`${WORKERS} workers · ${WORKERS} online`);
    expect(await page.textContent('.filter[data-filter="online"] .count')).toBe(String(WORKERS));
    for (const [index, worker] of workers.entries()) {
      const card = `.card[data-url="${worker.url}"]`;
      await page.waitForSelector(`${card} .latest .content:text-is("Echo: worker ${index} was here")`);
      await page.waitForSelector(`${card} .events li.replayed`);
      expect(await page.locator(`${card} .timeline .turn[data-status="ok"]`).count()).toBe(1);
    }
  }, 60_000);

  it('updates one card live among fifty', async () => {
    await workers[37].postLines('/api/message', { prompt: 'only thirty-seven speaks' });
    await page.waitForSelector(`.card[data-url="${workers[37].url}"] .latest .content:text-is("Echo: only thirty-seven speaks")`);
    expect(await page.locator('.latest .content:text-is("Echo: only thirty-seven speaks")').count()).toBe(1);
    expect(await page.locator(`.card[data-url="${workers[36].url}"] .latest .content`).textContent()).toBe('Echo: worker 36 was here');
  });
});
