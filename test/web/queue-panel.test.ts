import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/studio/api/index.js';
import { keepPageOnFailure, launchBrowser, openApp, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';

// The queue panel in chromium against a demo studio running one job at a
// time: jobs another client started are listed (running and queued, with
// their place), cancelled from the panel, listed as finished with their
// outcome, and retried.

let studio: DemoStudio;
let browser: Browser;
let page: Page;

const record = async (requestId: string): Promise<JobRecord> =>
  (await (await fetch(`${studio.url}/api/jobs/${requestId}`)).json()) as JobRecord;
const item = (section: '.jobq-inflight' | '.jobq-ended', requestId: string) =>
  page.locator(`${section} .jobq-item[data-request-id="${requestId}"]`);

beforeAll(async () => {
  studio = await startDemoStudio({ env: { SVC_MAX_RUNNING_JOBS: '1' } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await openApp(page, studio.url);
}, 120_000);

beforeEach(() => keepPageOnFailure(() => page, 'queue-panel'));

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

describe('the queue panel in chromium', () => {
  it('counts and lists the jobs of another client: one running with its phase and elapsed time, one queued with its place', async () => {
    expect(await page.locator('.jobq-button').getAttribute('data-count')).toBe('0');
    for (const [requestId, prompt] of [
      ['queue-run', '[sim:slow=30000] a lighthouse that runs a while'],
      ['queue-wait', '[sim:slow=30000] a lighthouse that waits its turn'],
    ]) {
      expect((await studio.post('/api/generate', { prompt, requestId, async: true })).status).toBe(202);
    }
    await page.locator('.jobq-button[data-count="2"]').waitFor();
    await page.click('.jobq-button');
    const running = item('.jobq-inflight', 'queue-run');
    const queued = item('.jobq-inflight', 'queue-wait');
    await running.waitFor();
    expect(await running.getAttribute('data-state')).toBe('running');
    expect(await running.locator('.jobq-kind').textContent()).toBe('generate');
    expect(await running.locator('.jobq-lane').textContent()).not.toBe('');
    expect(await running.locator('.jobq-phase').textContent()).not.toBe('');
    expect(await queued.getAttribute('data-state')).toBe('queued');
    expect(await queued.locator('.jobq-position').textContent()).toBe('#1 in line');
    // The elapsed time counts up.
    const first = await running.locator('.jobq-elapsed').textContent();
    await page.waitForFunction(
      (text) => document.querySelector('.jobq-inflight .jobq-item[data-request-id="queue-run"] .jobq-elapsed')?.textContent !== text,
      first,
    );
    await screenshot(page, 'queue');
  });

  it('cancels the queued job, then the running one, from the panel; both are listed as finished with their outcome', async () => {
    await item('.jobq-inflight', 'queue-wait').locator('.jobq-cancel').click();
    await item('.jobq-inflight', 'queue-wait').waitFor({ state: 'detached' });
    expect((await record('queue-wait')).state).toBe('cancelled');
    const endedWait = item('.jobq-ended', 'queue-wait');
    await endedWait.waitFor();
    expect(await endedWait.getAttribute('data-state')).toBe('cancelled');
    expect(await endedWait.locator('.jobq-error-code').textContent()).toBe('JOB_CANCELLED');
    // The running job is still running: only the queued one was cancelled.
    expect(await item('.jobq-inflight', 'queue-run').getAttribute('data-state')).toBe('running');

    await item('.jobq-inflight', 'queue-run').locator('.jobq-cancel').click();
    await item('.jobq-ended', 'queue-run').waitFor();
    expect((await record('queue-run')).state).toBe('cancelled');
    await page.locator('.jobq-button[data-count="0"]').waitFor();
    await page.locator('.jobq-inflight').waitFor({ state: 'detached' });
  });

  it('retries a cancelled job from the panel: the new attempt is listed, and runs', async () => {
    await item('.jobq-ended', 'queue-wait').locator('.jobq-retry').click();
    await page.locator('.jobq-inflight .jobq-item').first().waitFor();
    const retried = page.locator('.jobq-inflight .jobq-item').first();
    const requestId = (await retried.getAttribute('data-request-id')) as string;
    expect(requestId).not.toBe('queue-wait');
    const attempt = await record(requestId);
    expect(attempt).toMatchObject({ retryOf: 'queue-wait', attempt: 2 });
    await retried.locator('.jobq-cancel').click();
    await item('.jobq-ended', requestId).waitFor();
  });

  it('lays out at phone width, and closes with Escape', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'queue-phone');
    await page.keyboard.press('Escape');
    await page.locator('#jobq-drawer').waitFor({ state: 'detached' });
    expect(await page.locator('.jobq-button').getAttribute('aria-expanded')).toBe('false');
  });
});
