import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestChatServer } from './helpers.js';
import { openChatPage, type ChatPage } from './page.js';

/** How many automatic goal turns the server allows in a row here (each is one of the fake agent's echoes). */
const GOAL_TURNS = 3;

interface Messages {
  messages: Array<{ role: string; content: string; automatic?: { origin: string; label: string } }>;
}

describe('the chat page (React) in chromium against a demo chat server', () => {
  let chat: ChatPage;
  let server: TestChatServer;
  let page: Page;

  const send = (text: string) => chat.send(text);
  const newSession = async () => {
    const before = await page.getAttribute('#sessions button[aria-current="true"]', 'data-session-id');
    await page.click('#new-session');
    await page.waitForFunction(
      (id) => document.querySelector('#sessions button[aria-current="true"]')?.getAttribute('data-session-id') !== id,
      before,
    );
    await page.waitForSelector('.welcome');
  };
  const noHorizontalScroll = () =>
    page.evaluate(() => {
      const root = document.scrollingElement ?? document.documentElement;
      return { scroll: root.scrollWidth, client: root.clientWidth, body: document.body.scrollWidth };
    });

  beforeAll(async () => {
    chat = await openChatPage({
      chat: { goalMaxContinuations: GOAL_TURNS },
      context: { permissions: ['clipboard-read', 'clipboard-write'] },
    });
    ({ server, page } = chat);
  }, 60_000);

  afterAll(async () => {
    await chat?.close();
  });

  it('shows a welcome in an empty session, and serves its favicon', async () => {
    await page.waitForSelector('.welcome:has-text("Start a conversation")');
    expect(await page.getAttribute('link[rel="icon"]', 'href')).toBe('/favicon.svg');
    expect((await fetch(`${server.url}/favicon.svg`)).status).toBe(200);
  });

  it('renders Markdown: **bold** as bold, a fenced block as highlighted code with a working copy button', async () => {
    await send('Make it **bold** please\n\n```js\nconst answer = 42;\n```');
    const run = page.locator('.run[data-status="ok"]').last();
    await run.waitFor();
    expect(await run.locator('.text strong').textContent()).toBe('bold');
    expect(await run.locator('.code-block pre code').textContent()).toBe('const answer = 42;');
    expect(await run.locator('.code-block .code-language').textContent()).toBe('js');
    // highlight.js marked the keyword up.
    expect(await run.locator('.code-block code .hljs-keyword').first().textContent()).toBe('const');
    // The person's own bubble stays plain text.
    expect(await page.locator('.bubble.user .user-text').last().textContent()).toContain('**bold**');
    await run.locator('.code-block button.copy').click();
    await run.locator('.code-block button.copy:has-text("Copied")').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const answer = 42;');
  });

  it("runs no script from an agent's answer: raw HTML shows as text", async () => {
    const answer =
      'look <script>window.__pwned = 1</script> <img src="x" onerror="window.__pwned = 2"> [link](javascript:window.__pwned=3)';
    await send(answer);
    const run = page.locator('.run[data-status="ok"]').last();
    await run.locator('.text:has-text("window.__pwned = 1")').waitFor();
    await run.locator('.text a').click();
    // Give an onerror handler its chance: the image, had it been an element, would have failed to load by now.
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('.conversation script, .conversation img, .conversation [onerror]').count()).toBe(0);
    expect(await run.locator('.text').textContent()).toContain('<script>window.__pwned = 1</script>');
    expect(await run.locator('.text a').getAttribute('href')).toBeNull();
  });

  it('shows a goal’s continuation turns as automatic system lines, never as the person’s messages', async () => {
    await newSession();
    const sessionId = String(await page.getAttribute('#sessions button[aria-current="true"]', 'data-session-id'));
    await send('/goal set polish the docs');
    await page.waitForSelector('#goal[data-status="active"][data-stopped="true"]', { timeout: 20_000 });
    await page.waitForFunction((count) => document.querySelectorAll('.automatic[data-origin="goal"]').length === count, GOAL_TURNS);
    await page.waitForFunction((count) => document.querySelectorAll('.run[data-status="ok"]').length === count, GOAL_TURNS);

    // The server saved them as automatic, and the page shows none of them as a user bubble.
    const { body } = await server.getJson<Messages>(`/api/sessions/${sessionId}/messages`);
    const prompts = body.messages.filter((message) => message.role === 'user');
    expect(prompts).toHaveLength(GOAL_TURNS);
    expect(prompts.every((message) => message.automatic?.origin === 'goal')).toBe(true);
    expect(await page.locator('.bubble.user').count()).toBe(0);
    // Each shows as its label; the instruction itself stays folded (the fake agent's echo of it is the answer).
    for (const line of await page.locator('.automatic summary').allTextContents())
      expect(line).not.toContain(prompts[0].content.split('\n')[0]);
    expect(await page.locator('.automatic .automatic-prompt').count()).toBe(0);

    const first = page.locator('.automatic').first();
    expect(await first.locator('summary').textContent()).toContain(`automatic turn 1 of ${GOAL_TURNS} for goal: polish the docs`);
    // Expanding one shows the instruction the server sent.
    await first.locator('summary').click();
    expect(await first.locator('.automatic-prompt').textContent()).toBe(prompts[0].content);
    // The session is still untitled: an automatic prompt does not name it.
    expect(await page.textContent('#session-title')).toBe('Untitled session');
    // The bar says the goal runs here; from another session it says where it runs.
    expect(await page.getAttribute('#goal', 'data-here')).toBe('true');
    await page.locator('#sessions button', { hasText: 'Make it **bold**' }).click();
    await page.waitForSelector('#goal[data-here="false"] .scope:has-text("global, runs in")');
  });

  it('reuses an untouched empty session for "New session"', async () => {
    await newSession();
    const count = await page.locator('#sessions li').count();
    await page.click('#new-session');
    await page.click('#new-session');
    await page.waitForSelector('.welcome');
    expect(await page.locator('#sessions li').count()).toBe(count);
  });

  it('lists waiting messages with Remove and Steer now, and the running turn with its elapsed time', async () => {
    await send('long job [fake:hang]');
    await page.waitForSelector('.run[data-status="running"]');
    await send('second');
    await send('third');
    await page.waitForFunction(() => document.querySelectorAll('.waiting li').length === 2);
    await page.waitForSelector('#queue-state:has-text("running")');
    expect(await page.textContent('#queue-state')).toMatch(/running \d+ s · 2 waiting/);
    await page.locator('.waiting li', { hasText: 'second' }).locator('button.withdraw').click();
    await page.waitForFunction(() => document.querySelectorAll('.waiting li').length === 1);
    await page.waitForSelector('.run[data-status="cancelled"] .status:has-text("removed from the queue")');
    await page.locator('.waiting li', { hasText: 'third' }).locator('button.steer-now').click();
    await page.waitForSelector('.run[data-status="interrupted"]');
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("Echo: third")');
    expect(await page.locator('.waiting li').count()).toBe(0);
  });

  it('has keyboard shortcuts, listed in a ? overlay', async () => {
    await page.click('#session-title');
    await page.keyboard.press('?');
    await page.waitForSelector('[role="dialog"]:has-text("Keyboard shortcuts")');
    expect(await page.locator('.shortcuts kbd').allTextContents()).toEqual(expect.arrayContaining(['Enter', 'Alt+X', 'Alt+N', 'Ctrl+K']));
    await page.keyboard.press('Escape');
    await page.waitForSelector('[role="dialog"]', { state: 'detached' });
    await page.keyboard.press('Control+k');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('session-search');
    await page.keyboard.type('bold');
    expect(await page.locator('#sessions li').count()).toBe(1);
    await page.fill('#session-search', '');
    // Esc closes the session drawer Ctrl+K opened (it only shows on narrow screens).
    await page.keyboard.press('Escape');
    await page.waitForSelector('.app[data-drawer="false"]');
  });

  it('fits a 390 px and a 360 px phone: no horizontal scroll, even with a long line of code', async () => {
    await send(`wide\n\n\`\`\`\n${'x'.repeat(400)}\n\`\`\`\n\n${'https://example.com/' + 'a'.repeat(300)}`);
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("wide")');
    for (const width of [390, 360]) {
      await page.setViewportSize({ width, height: 780 });
      await page.waitForFunction((expected) => window.innerWidth === expected, width);
      const sizes = await noHorizontalScroll();
      expect(sizes.scroll, `at ${width} px`).toBeLessThanOrEqual(sizes.client);
      expect(sizes.body, `at ${width} px`).toBeLessThanOrEqual(width);
      // The session list is a drawer, opened from the header.
      await page.click('.session-header .menu');
      await page.waitForSelector('.app[data-drawer="true"]');
      await page.locator('#sessions button[aria-current="true"]').click();
      await page.waitForSelector('.app[data-drawer="false"]');
      expect((await noHorizontalScroll()).scroll).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('renames and deletes sessions from the list', async () => {
    const current = page.locator('#sessions li', { has: page.locator('button[aria-current="true"]') });
    await current.locator('button.rename').click();
    await page.fill('#sessions .renaming input', 'Renamed by hand');
    await page.press('#sessions .renaming input', 'Enter');
    await page.waitForSelector('#sessions button[aria-current="true"]:has-text("Renamed by hand")');
    await page.waitForSelector('#session-title:text-is("Renamed by hand")');

    const count = await page.locator('#sessions li').count();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('#sessions li', { hasText: 'Make it **bold**' }).locator('button.delete').click();
    await page.waitForFunction((before) => document.querySelectorAll('#sessions li').length === before - 1, count);
    expect(await page.locator('#sessions li', { hasText: 'Make it **bold**' }).count()).toBe(0);
  });
});
