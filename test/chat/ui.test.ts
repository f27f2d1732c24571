import type { Socket } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestChatServer } from './helpers.js';
import { openChatPage, type ChatPage } from './page.js';

describe('the chat page in chromium', () => {
  let chat: ChatPage;
  let server: TestChatServer;
  let page: Page;
  const sockets = new Set<Socket>();

  /** Cuts every open connection, as a network break would (the page's SSE stream among them). */
  const cutConnections = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  const dataset = (key: string) => page.evaluate((name) => document.body.dataset[name], key);

  beforeAll(async () => {
    chat = await openChatPage({
      beforeOpen: (started) =>
        started.app.server.on('connection', (socket: Socket) => {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        }),
    });
    ({ server, page } = chat);
  }, 60_000);

  afterAll(async () => {
    await chat?.close();
  });

  it('sends a prompt and shows live thinking, tool call, text and done', async () => {
    await page.fill('#prompt', 'hello [fake:thinking] [fake:tool] [fake:slow]');
    await page.press('#prompt', 'Enter');
    await page.waitForSelector('.bubble.user:has-text("hello [fake:thinking]")');
    // Live: text is on the page while the run is still going.
    await page.waitForSelector('.run[data-status="running"] .text:has-text("Step 1 of 4.")');
    await page.waitForSelector('.run[data-status="ok"]');
    const run = page.locator('.run[data-status="ok"]').last();
    expect(await run.locator('.thinking').textContent()).toContain('think briefly');
    expect(await run.locator('.tools li').allTextContents()).toEqual(['Bash ls']);
    expect(await run.locator('.text').textContent()).toContain('I listed the directory: 3 files.');
    expect(await page.locator('#sessions button[aria-current="true"]').textContent()).toContain('hello [fake:thinking]');
  });

  it('resumes by cursor after a short break, without a disconnect notice', async () => {
    const reconnectsBefore = Number((await dataset('reconnects')) ?? 0);
    // Keep the page from reconnecting while a run happens, so its events can only arrive by replay.
    await page.route('**/api/events**', (route) => route.abort());
    cutConnections();
    await page.waitForSelector('body[data-connection="reconnecting"]');
    const { lines } = await server.postLines('/api/message', { prompt: 'sent while you were away' });
    expect(lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    expect(await page.locator('.run .text:has-text("Echo: sent while you were away")').count()).toBe(0);

    await page.unroute('**/api/events**');
    await page.waitForSelector('body[data-connection="open"]');
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("Echo: sent while you were away")');
    expect(Number(await dataset('reconnects'))).toBeGreaterThan(reconnectsBefore);
    // Replayed from the cursor: no gap, no reload, and the notice never showed.
    expect(await dataset('replayGaps')).toBeUndefined();
    expect(await dataset('noticeShown')).toBeUndefined();
    expect(await page.isHidden('#notice')).toBe(true);
  });

  it('shows the notice only when a break outlasts 8 seconds, and hides it on reconnect', async () => {
    await page.route('**/api/events**', (route) => route.abort());
    cutConnections();
    await page.waitForSelector('body[data-connection="reconnecting"]');
    const attempts = Number(await dataset('reconnects'));
    // Several failed attempts later, still within the threshold: no notice yet.
    await page.waitForFunction((count) => Number(document.body.dataset.reconnects) >= count + 2, attempts);
    expect(await page.isHidden('#notice')).toBe(true);

    await page.waitForSelector('#notice', { state: 'visible', timeout: 20_000 });
    expect(await dataset('noticeShown')).toBe('1');

    await page.unroute('**/api/events**');
    await page.waitForSelector('body[data-connection="open"]', { timeout: 10_000 });
    expect(await page.isHidden('#notice')).toBe(true);
  }, 45_000);

  it('creates and switches sessions', async () => {
    const before = await page.locator('#sessions li').count();
    await page.click('#new-session');
    await page.waitForFunction((count) => document.querySelectorAll('#sessions li').length === count + 1, before);
    expect(await page.textContent('#session-title')).toBe('Untitled session');
    // The new session's (empty) conversation replaces the old one's after its read: wait for it, a loaded machine is slow.
    await page.waitForFunction(() => document.querySelectorAll('.conversation .bubble').length === 0, undefined, { timeout: 10_000 });
    await page.locator('#sessions button', { hasText: 'hello [fake:thinking]' }).click();
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("I listed the directory")');
  });
});
