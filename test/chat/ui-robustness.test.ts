import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestChat, type TestChatServer } from './helpers.js';
import { ensureChatBuild } from '../web/build.js';

interface Status {
  currentSessionId: string;
  queues: Array<{ sessionId: string; pending: number; active: { traceId: string } | null }>;
}

describe('the chat page under load, reloads and a token', () => {
  let browser: Browser;
  const cleanup: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    // The page is the built React app (dist/web/chat).
    await ensureChatBuild();
    browser = await launchBrowser();
  }, 60_000);
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(options: Parameters<typeof startTestChat>[0] = {}, path = '/'): Promise<{ server: TestChatServer; page: Page }> {
    const server = await startTestChat(options);
    cleanup.push(() => server.stop());
    const page = await browser.newPage();
    cleanup.push(() => page.close());
    await page.goto(`${server.url}${path}`);
    return { server, page };
  }

  const ready = (page: Page) => page.waitForSelector('body[data-ready="true"][data-connection="open"]');

  async function send(page: Page, text: string): Promise<void> {
    await page.fill('#prompt', text);
    await page.press('#prompt', 'Enter');
  }

  async function status(server: TestChatServer): Promise<Status> {
    return (await server.getJson<Status>('/api/status')).body;
  }

  /** Polls the server (bounded) until `check` holds. */
  async function until(what: string, server: TestChatServer, check: (state: Status) => boolean): Promise<void> {
    let last: Status | undefined;
    const poll = async () => {
      last = await status(server);
      return check(last);
    };
    const deadline = Date.now() + 15_000;
    while (!(await poll())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('holds no connection per sent message: with five waiting behind a hung run, Cancel still gets through', async () => {
    const { server, page } = await open();
    await ready(page);
    await send(page, 'first [fake:hang]');
    await page.waitForSelector('.run[data-status="running"] .text:has-text("Working on it")');
    for (let index = 0; index < 5; index += 1) await send(page, `queued ${index}`);
    // All five reached the server (a browser allows six connections per server, the event stream holds one).
    await until('five waiting messages', server, (state) => state.queues[0]?.pending === 5);

    await page.click('#cancel');
    await page.waitForSelector('.bubble.note:has-text("Cancelled run")');
    await page.waitForSelector('.run[data-status="cancelled"] .text:has-text("Working on it")');
    // Leaving the responses early only detached them: every waiting run went on and was answered.
    await page.waitForFunction(() => document.querySelectorAll('.run[data-status="ok"]').length === 5, undefined, { timeout: 20_000 });
    expect(await page.locator('.run[data-status="ok"] .text').allTextContents()).toEqual(
      [0, 1, 2, 3, 4].map((index) => `Echo: queued ${index}`),
    );
  });

  it("keeps a running answer's output over a refresh, shows it running, and shows an answer that ended while the history was on its way", async () => {
    const { server, page } = await open();
    await ready(page);
    await send(page, 'long one [fake:hang]');
    await page.waitForSelector('.run[data-status="running"] .text:has-text("Working on it")');

    // A refresh mid-run (re-opening the current session).
    await page.locator('#sessions button[aria-current="true"]').click();
    await page.waitForSelector('.run[data-status="running"] .text:has-text("Working on it…")');

    // The history is answered mid-run but reaches the page only after the run ended.
    let snapshotTaken!: () => void;
    const taken = new Promise<void>((resolve) => (snapshotTaken = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/sessions/*/messages', async (route) => {
      const response = await route.fetch();
      snapshotTaken();
      await released;
      await route.fulfill({ response });
    });
    await page.locator('#sessions button[aria-current="true"]').click();
    await taken;
    const cancel = await server.postLines('/api/command', { text: '/cancel' });
    expect(cancel.lines.at(-1)).toMatchObject({ data: { cancelled: true } });
    await until('the run to end', server, (state) => state.queues.length === 0);
    release();
    await page.waitForSelector('.run[data-status="cancelled"] .text:has-text("Working on it…")');
    await page.unroute('**/api/sessions/*/messages');
    expect(await page.locator('.run').count()).toBe(1);
  });

  it('shows the active run as running (not waiting) after a page load', async () => {
    const { server, page } = await open();
    await ready(page);
    await send(page, 'busy [fake:hang]');
    await page.waitForSelector('.run[data-status="running"]');
    await page.reload();
    await ready(page);
    await page.waitForSelector('.run[data-status="running"]');
    expect(await page.locator('.run[data-status="waiting"]').count()).toBe(0);
    await server.postLines('/api/command', { text: '/cancel' });
    await page.waitForSelector('.run[data-status="cancelled"]');
  });

  it('works with SVC_CHAT_TOKEN: the token comes in the URL, stays for the tab, and leaves the address bar', async () => {
    const token = 'page-token-0123456789abcdef';
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CHAT_TOKEN: token };
    const { server, page } = await open({ env }, `/#token=${token}`);
    await ready(page);
    expect(page.url()).toBe(`${server.url}/`);
    await send(page, 'with a token');
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("Echo: with a token")');
    // A slash command goes through too.
    await send(page, '/help');
    await page.waitForSelector('.bubble.note:has-text("/steer <prompt>")');

    // The tab keeps it over a reload.
    await page.reload();
    await ready(page);
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("Echo: with a token")');

    // The query form works as well.
    const other = await browser.newPage();
    cleanup.push(() => other.close());
    await other.goto(`${server.url}/?token=${token}`);
    await ready(other);
    expect(other.url()).toBe(`${server.url}/`);

    // Without it, the page says what is missing.
    const bare = await browser.newPage();
    cleanup.push(() => bare.close());
    await bare.goto(server.url);
    await bare.waitForSelector('.bubble.note:has-text("needs its access token")');
  });
});
