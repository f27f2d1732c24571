import { readdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { webDir as builtWebDir } from '../web/build.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from '../chat/helpers.js';
import { openDashboard, type Dashboard } from './dashboard-page.js';
import type { TestManager } from './helpers.js';

describe('the manager dashboard in chromium, following two chat servers with fake agents', () => {
  // The real dashboard, built as `npm run build` builds it (rebuilt when a source is newer).
  const webDir = builtWebDir('manager');
  let one: TestChatServer;
  let two: TestChatServer;
  let dashboard: Dashboard;
  let manager: TestManager;
  let page: Page;
  const sockets = new Set<Socket>();
  const card = (server: TestChatServer) => `.card[data-url="${server.url}"]`;

  beforeAll(async () => {
    [one, two] = [await startTestChat(), await startTestChat()];
    dashboard = await openDashboard([one.url, two.url], {
      beforeOpen: (started) =>
        started.app.server.on('connection', (socket: Socket) => {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        }),
    });
    ({ manager, page } = dashboard);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
    await one?.stop();
    await two?.stop();
  });

  it('shows every worker online with its latest message, state, queue and goal', async () => {
    await page.waitForSelector(`${card(one)}[data-health="online"]`);
    await page.waitForSelector(`${card(two)}[data-health="online"]`);
    await one.postLines('/api/message', { prompt: 'first worker speaks' });
    await two.postLines('/api/message', { prompt: 'second worker lists [fake:tool]' });
    await page.waitForSelector(`${card(one)} .latest .content:text-is("Echo: first worker speaks")`);
    await page.waitForSelector(`${card(two)} .latest .content:text-is("I listed the directory: 3 files.")`);

    const hanging = one.postLines('/api/message', { prompt: 'busy [fake:hang]' });
    await page.waitForSelector(`${card(one)}[data-agent-state="running"]`);
    expect(await page.textContent(`${card(one)} .queue`)).toBe('running, 0 waiting');
    await one.postLines('/api/command', { text: '/cancel' });
    await hanging;
    await page.waitForSelector(`${card(one)}[data-agent-state="idle"]`);

    await two.postJson('/api/goal', { action: 'set', objective: 'ship [fake:goaldone]' });
    await page.waitForSelector(`${card(two)} .goal:text-is("ship [fake:goaldone] (done)")`);
  });

  it('lists the recent events of a worker', async () => {
    await page.click(`${card(one)} button:text-is("Events")`);
    await page.waitForSelector(`${card(one)} .events li code:text-is("agent_done")`);
  });

  it('recovers from a short break of its own event stream silently', async () => {
    const opens = Number(await page.getAttribute('.app', 'data-opens'));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await page.waitForFunction((before) => Number(document.querySelector('.app')?.getAttribute('data-opens')) > before, opens);
    await one.postLines('/api/message', { prompt: 'after the break' });
    await page.waitForSelector(`${card(one)} .latest .content:text-is("Echo: after the break")`);
    expect(await page.locator('.channel-disconnected').count()).toBe(0);
  });

  it('marks a stopped worker offline and keeps the other online', async () => {
    await two.stop();
    await page.waitForSelector(`${card(two)}[data-health="offline"]`);
    expect(await page.getAttribute(card(one), 'data-health')).toBe('online');
  });

  it('follows a worker added from the page, and refuses a URL it must not follow', async () => {
    const three = await startTestChat();
    try {
      await page.fill('input[aria-label="Worker URL"]', 'http://example.com:80');
      await page.click('button:text-is("Follow")');
      await page.waitForSelector('.notice[role="alert"]:has-text("only loopback hosts are followed")');
      await page.fill('input[aria-label="Worker URL"]', three.url);
      await page.click('button:text-is("Follow")');
      await page.waitForSelector(`${card(three)}[data-health="online"]`);
      await page.click(`${card(three)} button:text-is("Remove")`);
      await page.waitForSelector(card(three), { state: 'detached' });
    } finally {
      await three.stop();
    }
  });

  it('serves the hashed assets with a long cache and the page with revalidation', async () => {
    const page = await fetch(`${manager.url}/`);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const asset = readdirSync(join(webDir, 'assets')).find((name) => name.endsWith('.js'));
    const served = await fetch(`${manager.url}/assets/${asset}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${manager.url}/assets/..%2Findex.html`)).status).toBe(404);
  });
});
