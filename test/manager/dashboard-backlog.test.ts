import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from '../chat/helpers.js';
import { openDashboard, type Dashboard } from './dashboard-page.js';
import type { TestManager } from './helpers.js';

describe('the manager dashboard on first load: a worker that was busy before the manager followed it', () => {
  let worker: TestChatServer;
  let dashboard: Dashboard;
  let manager: TestManager;
  let page: Page;
  const card = () => `.card[data-url="${worker.url}"]`;

  beforeAll(async () => {
    worker = await startTestChat();
    // All of this happens before the manager exists: only the worker's replay can tell it.
    await worker.postLines('/api/message', { prompt: 'list it [fake:tool]' });
    await worker.postLines('/api/message', { prompt: 'this one fails [fake:error]' });
    await worker.postLines('/api/message', { prompt: 'the last word' });
    dashboard = await openDashboard([worker.url]);
    ({ manager, page } = dashboard);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
    await worker?.stop();
  });

  it("shows the worker's last message and its recent events without new activity", async () => {
    await page.waitForSelector(`${card()} .latest .content:text-is("Echo: the last word")`);
    await page.waitForSelector(`${card()} .events li.replayed code:text-is("message")`);
    const events = await page.locator(`${card()} .events li code`).allTextContents();
    expect(events.length).toBe(5);
    expect(await page.locator(`${card()} .events li.replayed`).count()).toBe(5);
    // "Events" shows more of them, back to the first run's tool call.
    await page.click(`${card()} button:text-is("Events")`);
    await page.waitForSelector(`${card()} .events li.replayed code:text-is("agent_tool")`);
    expect(await page.locator(`${card()} .events li`).count()).toBeGreaterThan(5);
  });

  it('draws the turns timeline from the backlog: two ok, one error, idle now', async () => {
    await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 3, `${card()} .timeline .turn[data-status]`);
    expect(
      await page
        .locator(`${card()} .timeline .turn[data-status]`)
        .evaluateAll((turns) => turns.map((turn) => turn.getAttribute('data-status'))),
    ).toEqual(['ok', 'error', 'ok']);
    expect(await page.locator(`${card()} .timeline .turn-now.turn-idle`).count()).toBe(1);
  });

  it("links to the worker's chat page, counts in words, filters by state, and has an icon", async () => {
    expect(await page.getAttribute(`${card()} a.open`, 'href')).toBe(worker.url);
    expect(await page.textContent('.counts')).toBe('1 worker · 1 online');
    await page.click('.filter[data-filter="offline"]');
    await page.waitForSelector(card(), { state: 'detached' });
    await page.waitForSelector('.empty:text-is("No worker is offline.")');
    await page.click('.filter[data-filter="idle"]');
    await page.waitForSelector(card());
    await page.click('.filter[data-filter="all"]');
    expect(await page.getAttribute('link[rel="icon"]', 'href')).toBe('/favicon.svg');
    const icon = await fetch(`${manager.url}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toContain('image/svg+xml');
  });

  it('keeps the backlog apart from what happens next: a new message is live, not replayed', async () => {
    await worker.postLines('/api/message', { prompt: 'now, live' });
    await page.waitForSelector(`${card()} .latest .content:text-is("Echo: now, live")`);
    await page.waitForSelector(`${card()} .events li:not(.replayed) code:text-is("message")`);
    const { body } = await manager.request<{ events: Array<{ event: string; replayed?: boolean }> }>(
      'GET',
      `/api/instances/${await page.getAttribute(card(), 'data-instance-id')}/events?limit=200`,
    );
    expect(body.events.filter((event) => event.replayed).length).toBeGreaterThan(0);
    expect(body.events.filter((event) => event.event === 'replay_gap')).toEqual([]);
  });
});
