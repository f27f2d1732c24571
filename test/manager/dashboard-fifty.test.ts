import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from '../chat/helpers.js';
import { openDashboard, type Dashboard } from './dashboard-page.js';

/** The manager bench's figure (bench/manager.ts): one manager, 50 workers. */
const WORKERS = 50;

describe(`the manager dashboard with ${WORKERS} workers`, () => {
  const workers: TestChatServer[] = [];
  let dashboard: Dashboard;
  let page: Page;

  beforeAll(async () => {
    for (let index = 0; index < WORKERS; index += 1) workers.push(await startTestChat());
    // Each says something before the manager follows it: the page must show it from the backlog.
    await Promise.all(workers.map((worker, index) => worker.postLines('/api/message', { prompt: `worker ${index} was here` })));
    dashboard = await openDashboard(
      workers.map((worker) => worker.url),
      { viewport: { width: 1400, height: 900 } },
    );
    ({ page } = dashboard);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.close();
    await Promise.all(workers.map((worker) => worker.stop()));
  }, 60_000);

  it('shows every worker online with its own last message and backlog, and the counts', async () => {
    await page.waitForFunction((count) => document.querySelectorAll('.card[data-health="online"]').length === count, WORKERS, {
      timeout: 30_000,
    });
    expect(await page.textContent('.counts')).toBe(`${WORKERS} workers · ${WORKERS} online`);
    expect(await page.textContent('.filter[data-filter="online"] .count')).toBe(String(WORKERS));
    for (const [index, worker] of workers.entries()) {
      const card = `.card[data-url="${worker.url}"]`;
      // Fifty backlogs read on a busy 2-core machine can take longer than a locator's default budget.
      await page.waitForSelector(`${card} .latest .content:text-is("Echo: worker ${index} was here")`, { timeout: 90_000 });
      await page.waitForSelector(`${card} .events li.replayed`, { timeout: 90_000 });
      expect(await page.locator(`${card} .timeline .turn[data-status="ok"]`).count()).toBe(1);
    }
  }, 180_000);

  it('updates one card live among fifty', async () => {
    await workers[37].postLines('/api/message', { prompt: 'only thirty-seven speaks' });
    await page.waitForSelector(`.card[data-url="${workers[37].url}"] .latest .content:text-is("Echo: only thirty-seven speaks")`);
    expect(await page.locator('.latest .content:text-is("Echo: only thirty-seven speaks")').count()).toBe(1);
    expect(await page.locator(`.card[data-url="${workers[36].url}"] .latest .content`).textContent()).toBe('Echo: worker 36 was here');
  });
});
