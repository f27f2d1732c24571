import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentQueue } from '../../src/studio/api/index.js';
import { launchBrowser, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';

// The Agent view in chromium against a demo studio: a session made by a
// click, a turn typed with slash completion that produces an image (on the
// stage and in the filmstrip), a queued item cancelled from the page, and the
// same state after a reload.

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('Agent view in chromium against a demo studio', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;
  let sessionId = '';
  /** Uncaught errors of the page: none is expected. */
  const pageErrors: string[] = [];

  const json = async <T>(path: string): Promise<T> => (await (await fetch(`${studio.url}${path}`)).json()) as T;
  const item = (prompt: string) => page.locator('.agent-queue .queue-item', { hasText: prompt });

  beforeAll(async () => {
    studio = await startDemoStudio();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: DESKTOP });
    // A wait that fails names its selector before the test's own time is up.
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${studio.url}/agent`);
    await page.waitForSelector('body[data-connection="open"]');
    await page.waitForSelector('.agent[data-ready="true"]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('starts a session with a click; the composer completes slash commands; a turn produces an image on the stage', async () => {
    expect(await page.locator('.agent-empty').textContent()).toContain('No session yet');
    await page.click('.agent-rail button:has-text("New session")');
    await page.waitForURL(/\/agent#.+$/);
    sessionId = decodeURIComponent(new URL(page.url()).hash.slice(1));
    await page.locator(`.agent-session[data-session="${sessionId}"]`).waitFor();

    const input = page.locator('#agent-input');
    await input.fill('/');
    expect(
      await page
        .locator('.slash-list [role="option"]')
        .evaluateAll((options) => options.map((option) => (option as HTMLElement).dataset.command)),
    ).toEqual(['question', 'variants', 'edit', 'new', 'lane', 'undo', 'help']);
    await input.fill('/ne');
    expect(await page.locator('.slash-list [role="option"]').count()).toBe(1);
    await input.press('Tab');
    expect(await input.inputValue()).toBe('/new ');
    await input.pressSequentially('a red fox in fresh snow');
    await input.press('Enter');

    const turn = page.locator('.turn', { hasText: 'a red fox in fresh snow' });
    await turn.locator('.turn-image').first().waitFor({ timeout: 20_000 });
    expect(await turn.getAttribute('data-state')).toBe('succeeded');
    expect(await turn.locator('.turn-plan').textContent()).toContain('command /new');
    const made = await turn.locator('.turn-image').first().getAttribute('data-filename');
    await page.locator(`.agent-stage img[data-filename="${made}"]`).waitFor();
    expect(await page.locator('.filmstrip button[aria-pressed="true"]').getAttribute('data-filename')).toBe(made);
    // The server agrees: the image is the session's current one.
    const session = await json<{ currentImage: { filename: string } | null; images: string[] }>(`/api/agent/sessions/${sessionId}`);
    expect(session.currentImage?.filename).toBe(made);
    expect(session.images).toEqual([made]);
    // Commands decide by themselves: the badge names the planner that would answer a plain turn.
    expect(await page.locator('.planner-badge').getAttribute('data-decided-by')).toBe('');
    expect(['oauth', 'alpha', 'api', 'alpha-api']).toContain(await page.locator('.planner-badge').getAttribute('data-backend'));
  });

  it('refuses an unknown command with its code, queuing nothing', async () => {
    await page.locator('#agent-input').fill('/dance now');
    await page.locator('#agent-input').press('Escape');
    await page.click('.agent-composer button:has-text("Send")');
    await page.locator('.agent-composer .error-notice[data-code="AGENT_UNKNOWN_COMMAND"]').waitFor();
    expect((await json<AgentQueue>(`/api/agent/sessions/${sessionId}/queue`)).items).toHaveLength(1);
  });

  it('cancels a queued item from the page: it never runs, a reload mid-run shows the same state, and it can be retried', async () => {
    const input = page.locator('#agent-input');
    await input.fill('/new a slow kite over the dunes [sim:slow=8000]');
    await input.press('Enter');
    await item('a slow kite').and(page.locator('[data-state="running"]')).waitFor();
    await input.fill('/new a waiting owl');
    await input.press('Enter');
    const owl = item('a waiting owl');
    await owl.and(page.locator('[data-state="queued"]')).waitFor();
    expect(await owl.locator('.queue-note').textContent()).toContain('#1 in line');
    await screenshot(page, 'agent-queue');
    await owl.locator('button:has-text("Cancel")').click();
    await owl.and(page.locator('[data-state="cancelled"]')).waitFor();
    await owl.locator('button:has-text("Retry")').waitFor();

    // A reload mid-run shows the same state: the kite still running, the owl cancelled.
    await page.reload();
    await item('a slow kite').and(page.locator('[data-state="running"]')).waitFor();
    await owl.and(page.locator('[data-state="cancelled"]')).waitFor();

    const queue = await json<AgentQueue>(`/api/agent/sessions/${sessionId}/queue`);
    const entry = queue.items.find((candidate) => candidate.prompt === '/new a waiting owl');
    expect(entry).toMatchObject({ state: 'cancelled', startedAt: null, error: { code: 'JOB_CANCELLED' } });
    // The slow one still runs to its end.
    await item('a slow kite').and(page.locator('[data-state="succeeded"]')).waitFor({ timeout: 20_000 });
  });

  it('shows the same state after a reload, and a filmstrip click makes an image current', async () => {
    await page.reload();
    await page.locator(`.agent-session[data-session="${sessionId}"]`).waitFor();
    expect(
      await page.locator('.agent-queue .queue-item').evaluateAll((items) => items.map((element) => (element as HTMLElement).dataset.state)),
    ).toEqual(['cancelled', 'succeeded', 'succeeded']);
    expect(await page.locator('.filmstrip button').count()).toBe(2);
    const first = page.locator('.filmstrip button').first();
    const filename = await first.getAttribute('data-filename');
    await first.click();
    await page.locator(`.filmstrip button[data-filename="${filename}"][aria-pressed="true"]`).waitFor();
    expect((await json<{ currentImage: { filename: string } | null }>(`/api/agent/sessions/${sessionId}`)).currentImage?.filename).toBe(
      filename,
    );
    // The session's locks are set from the page.
    await page.click('.agent-settings > summary');
    await page.fill('#agent-style-lock', 'watercolour, soft light');
    await page.click('.agent-settings button:has-text("Save locks")');
    await page.locator('.agent-settings > summary:has-text("locks set")').waitFor();
    expect((await json<{ styleLock: string | null }>(`/api/agent/sessions/${sessionId}`)).styleLock).toBe('watercolour, soft light');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await screenshot(page, 'agent');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'agent-phone', { fullPage: true });
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
  });

  it('a plain turn is planned by a model: the badge names the backend that answered', async () => {
    await page.locator('#agent-input').fill('a castle on a hill at dusk');
    await page.locator('#agent-input').press('Enter');
    const turn = page.locator('.turn', { hasText: 'a castle on a hill at dusk' });
    await turn.and(page.locator('[data-state="succeeded"]')).waitFor({ timeout: 20_000 });
    const body = await json<{ turns: Array<{ prompt: string; plan: { decidedBy: string; backend: string | null } | null }> }>(
      `/api/agent/sessions/${sessionId}`,
    );
    const plan = body.turns.find((entry) => entry.prompt === 'a castle on a hill at dusk')?.plan;
    expect(plan?.decidedBy).toBe('planner');
    const badge = page.locator('.planner-badge[data-decided-by="planner"]');
    await badge.waitFor();
    expect(await badge.getAttribute('data-backend')).toBe(plan?.backend);
    expect(await turn.locator('.turn-plan').textContent()).toContain(`planner ${plan?.backend}`);
    expect(pageErrors).toEqual([]);
  });
});
