import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../helpers/svc.js';
import { generate, launchBrowser, openApp, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';
import { JOB_RECORDER, type JobSnapshot } from './recorder.js';

const jobLog = (page: Page, id: string) =>
  page.evaluate((requestId) => (window as unknown as { __jobLog: JobSnapshot[] }).__jobLog.filter((entry) => entry.id === requestId), id);

describe('Classic in chromium against a demo studio', () => {
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    studio = await startDemoStudio();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript(JOB_RECORDER);
    await openApp(page, studio.url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('generates from Classic: phases live, a partial before the final, the image in its frame, then in History with its prompt', async () => {
    await page.selectOption('#size', '1536x1024');
    const id = await generate(page, 'a red kite over green hills');
    const card = page.locator(`.job[data-request-id="${id}"]`);
    await card.locator('img[data-final]').waitFor();
    await page.waitForFunction((requestId) => {
      const image = document.querySelector<HTMLImageElement>(`.job[data-request-id="${requestId}"] img[data-final]`);
      return image !== null && image.complete && image.naturalWidth > 0;
    }, id);
    expect(await card.getAttribute('data-status')).toBe('succeeded');

    const log = await jobLog(page, id);
    // The steps as they were shown, in order (each at least once).
    const phases = log.map((entry) => entry.phase).filter((phase, index, all) => phase !== '' && phase !== all[index - 1]);
    expect(phases).toEqual(expect.arrayContaining(['planning', 'rendering', 'saving']));
    expect(phases.indexOf('planning')).toBeLessThan(phases.indexOf('rendering'));
    expect(phases.indexOf('rendering')).toBeLessThan(phases.indexOf('saving'));
    // A partial render was on the page before the final image.
    const states = log.map((entry) => entry.slot);
    expect(states).toContain('partial');
    expect(states.indexOf('partial')).toBeLessThan(states.indexOf('final'));
    // The frame kept the requested shape from the start: nothing moved when images arrived.
    const heights = new Set(log.map((entry) => entry.frameHeight));
    expect(heights.size).toBe(1);
    const box = await card.locator('.image-frame').boundingBox();
    expect(Math.round(((box?.width ?? 0) / (box?.height ?? 1)) * 100) / 100).toBe(1.5);
    await card.locator('.phases li[data-state="done"]', { hasText: 'Done' }).waitFor();
    expect(await card.locator('.revised-prompt').textContent()).toContain('A simulated image of a red kite over green hills');
    await screenshot(page, 'classic');

    await page.click('nav a[href="/history"]');
    await page.locator('.tile[aria-label="a red kite over green hills"]').waitFor();
    await page.click('nav a[href="/"]');
    await page.selectOption('#size', '');
  });

  it('runs several outputs as one batch and shows them as a grid', async () => {
    await page.fill('#count', '3');
    const id = await generate(page, 'three blue boats');
    const card = page.locator(`.job[data-request-id="${id}"]`);
    await page.locator(`.job[data-request-id="${id}"][data-status="succeeded"]`).waitFor();
    expect(await card.locator('.slot img[data-final]').count()).toBe(3);
    expect(await card.locator('.slots').getAttribute('class')).toContain('slots-3');
    const tops = await card.locator('.slot').evaluateAll((slots) => slots.map((slot) => Math.round(slot.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBeLessThan(3);
    await page.fill('#count', '1');
  });

  it('cancels a running job', async () => {
    const id = await generate(page, '[sim:slow=8000] a slow lighthouse');
    const card = page.locator(`.job[data-request-id="${id}"]`);
    await card.locator('button', { hasText: 'Cancel' }).click();
    await page.locator(`.job[data-request-id="${id}"][data-status="cancelled"]`).waitFor();
    expect(await card.locator('.phases li').last().textContent()).toBe('Cancelled');
    const inflight = (await (await fetch(`${studio.url}/api/inflight`)).json()) as { jobs: unknown[] };
    expect(inflight.jobs).toEqual([]);
  });

  it('explains a failure by its code, with the remedy and a link to Settings when the fix is there', async () => {
    const refused = await generate(page, '[sim:moderation] a forbidden thing');
    const refusedCard = page.locator(`.job[data-request-id="${refused}"]`);
    await page.locator(`.job[data-request-id="${refused}"][data-status="failed"]`).waitFor();
    const notice = refusedCard.locator('.error-notice');
    expect(await notice.getAttribute('data-code')).toBe('MODERATION_REFUSED');
    expect(await notice.locator('.error-meaning').textContent()).toContain('moderation refused this prompt');
    expect(await notice.locator('.error-remedy').textContent()).toContain('set moderation to low');
    expect(await notice.locator('a', { hasText: 'Open Settings' }).count()).toBe(0);

    // An image that turns out not to decode leaves history; its slot says so instead of showing it.
    const damaged = await generate(page, '[sim:corrupt-image] a damaged kite');
    const damagedSlot = page.locator(`.job[data-request-id="${damaged}"] .slot[data-state="error"]`);
    await damagedSlot.waitFor();
    expect(await damagedSlot.textContent()).toContain('removed from history');
    const listed = (await (await fetch(`${studio.url}/api/history?q=damaged`)).json()) as { items: unknown[] };
    expect(listed.items).toEqual([]);

    await page.selectOption('#lane', 'api');
    const rejected = await generate(page, '[sim:unauthorized] a key that was revoked');
    const rejectedCard = page.locator(`.job[data-request-id="${rejected}"]`);
    await page.locator(`.job[data-request-id="${rejected}"][data-status="failed"]`).waitFor();
    expect(await rejectedCard.locator('.error-notice').getAttribute('data-code')).toBe('AUTH_API_KEY_INVALID');
    expect(await rejectedCard.locator('.error-remedy').textContent()).toContain('Check the key in Settings');
    expect(await rejectedCard.locator('.error-remedy a').getAttribute('href')).toBe('/settings#lane-api');
    await page.selectOption('#lane', 'auto');
  });

  it('shows a job started from the CLI live, with its prompt', async () => {
    const cli = runSvc(['generate', '[sim:slow=1500] a kite sent from the command line'], { SVC_SERVER: studio.url });
    const card = page.locator('.job[data-origin="elsewhere"]', { hasText: 'a kite sent from the command line' });
    await page
      .locator('.job[data-origin="elsewhere"][data-status="running"]', { hasText: 'a kite sent from the command line' })
      .waitFor({ timeout: 20_000 });
    expect(await card.locator('.badge', { hasText: 'from another client' }).count()).toBe(1);
    await card.locator('img[data-final]').waitFor({ timeout: 20_000 });
    expect(await card.getAttribute('data-status')).toBe('succeeded');
    const { code, stderr } = await cli;
    expect(code, stderr).toBe(0);
  });

  it('reconciles running jobs from the server on load, before showing any', async () => {
    const requestId = `reload-${Date.now()}`;
    const answer = await studio.post('/api/generate', { prompt: '[sim:slow=4000] started before the reload', requestId, async: true });
    expect(answer.status).toBe(202);
    await page.reload();
    await page.waitForSelector('.jobs[data-reconciled="true"]');
    // The running job was on the page as soon as the list showed at all, with the server's step.
    const card = page.locator(`.job[data-request-id="${requestId}"]`);
    expect(await card.count()).toBe(1);
    expect(await card.getAttribute('data-status')).toBe('running');
    expect(['queued', 'planning', 'rendering']).toContain(await card.getAttribute('data-phase'));
    expect(await page.evaluate(() => (window as unknown as { __jobsBeforeReconcile: number }).__jobsBeforeReconcile)).toBe(0);
    await card.locator('img[data-final]').waitFor({ timeout: 20_000 });
    expect(await card.locator('.job-prompt').textContent()).toContain('started before the reload');
  });

  it('takes reference images by drop and by paste, previews and counts them, and sends them', async () => {
    /** Dispatches a drop (or a paste) carrying files made in the page: a small PNG and a text file. */
    const deliver = (kind: 'drop' | 'paste', selector: string, files: Array<{ name: string; png: boolean }>) =>
      page.evaluate(
        async ({ kind, selector, files }) => {
          const transfer = new DataTransfer();
          for (const file of files) {
            let blob: Blob;
            if (file.png) {
              const canvas = document.createElement('canvas');
              canvas.width = 32;
              canvas.height = 32;
              const context = canvas.getContext('2d') as CanvasRenderingContext2D;
              context.fillStyle = '#2f9e44';
              context.fillRect(0, 0, 32, 32);
              blob = await new Promise<Blob>((resolve) => canvas.toBlob((made) => resolve(made as Blob), 'image/png'));
            } else blob = new Blob(['not an image'], { type: 'text/plain' });
            transfer.items.add(new File([blob], file.name, { type: blob.type }));
          }
          const target = document.querySelector(selector) as HTMLElement;
          target.dispatchEvent(
            kind === 'drop'
              ? new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true })
              : new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }),
          );
        },
        { kind, selector, files },
      );

    await deliver('drop', '[data-testid="drop-zone"]', [
      { name: 'green.png', png: true },
      { name: 'notes.txt', png: false },
    ]);
    await page.locator('.reference[data-source="file"] img[alt="green.png"]').waitFor();
    expect(await page.locator('.composer [role="alert"]', { hasText: 'notes.txt: not PNG, JPEG or WebP' }).count()).toBe(1);
    await deliver('paste', '#prompt', [{ name: 'pasted.png', png: true }]);
    await page.locator('.reference[data-source="file"] img[alt="pasted.png"]').waitFor();
    expect(await page.textContent('#reference-count')).toBe('2 of 16');
    expect(await page.getAttribute('.reference img[alt="green.png"]', 'src')).toMatch(/^data:image\/png;base64,/);

    const id = await generate(page, 'a kite in the style of the references');
    await page.locator(`.job[data-request-id="${id}"][data-status="succeeded"]`).waitFor();
    const job = (await (await fetch(`${studio.url}/api/jobs/${id}`)).json()) as {
      request: { inputs: { references: Array<{ source: string; width: number; format: string }> } };
    };
    expect(job.request.inputs.references.map(({ source, width, format }) => ({ source, width, format }))).toEqual([
      { source: 'inline', width: 32, format: 'png' },
      { source: 'inline', width: 32, format: 'png' },
    ]);
    while ((await page.locator('.reference .remove').count()) > 0) await page.locator('.reference .remove').first().click();
  });

  it('lists what Classic made in History, newest first, with how each was made', async () => {
    await page.click('nav a[href="/history"]');
    await page.locator('.tile[aria-label="a red kite over green hills"]').click();
    await page.locator('.detail .detail-prompt', { hasText: 'a red kite over green hills' }).waitFor();
    expect(await page.textContent('.detail .facts')).toContain('lang-6-luna');
    // The job record is still there: the detail shows the time it took.
    await page.locator('.detail dd', { hasText: 'in total' }).waitFor();
    const labels = await page.locator('.tile').evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute('aria-label')));
    expect(labels[0]).toBe('a kite in the style of the references');
    expect(labels.filter((label) => label === 'three blue boats')).toHaveLength(3);
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('.tile img, .detail img')).every(
        (image) => image.complete && image.naturalWidth > 0,
      ),
    );
    await screenshot(page, 'history-generated');
    await page.click('.detail button[aria-label="Close details"]');
    await page.click('nav a[href="/"]');
  });

  it('works at a phone width without sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      await openApp(phone, studio.url);
      await phone.fill('#prompt', 'a small red kite');
      await phone.click('.composer button[type="submit"]');
      await phone.locator('.job[data-status="succeeded"] img[data-final]').first().waitFor();
      for (const path of ['/', '/history', '/settings']) {
        await phone.click(`nav a[href="${path}"]`);
        await phone.waitForSelector(path === '/' ? '.composer' : path === '/history' ? '.tile' : '.lane-row');
        expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      }
      await phone.click('nav a[href="/"]');
      await screenshot(phone, 'classic-390', { fullPage: true });
    } finally {
      await phone.close();
    }
  });
});

describe('a lane without its key, in chromium', () => {
  let studio: DemoStudio;
  let browser: Browser;

  beforeAll(async () => {
    studio = await startDemoStudio({ withoutKeys: true });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('shows the lane with its reason and a link to Settings, where the lane is pointed out', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openApp(page, studio.url);
    // Listed, not hidden, under the lanes that are not ready.
    expect(await page.locator('#lane optgroup[label="Not ready"] option[value="api"]').textContent()).toContain('needs a credential');
    await page.selectOption('#lane', 'api');
    const status = page.locator('#lane-status');
    expect(await status.getAttribute('data-state')).toBe('needs_credential');
    expect(await status.textContent()).toContain('set OMNI_API_KEY');
    await page.fill('#prompt', 'a prompt for a lane without a key');
    expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(true);
    await screenshot(page, 'classic-lane-without-key');

    // A lane's own options come from its JSON Schema, with the estimated price where the catalog has one.
    await page.selectOption('#lane', 'beta-api');
    expect(await page.locator('#option-aspectRatio option').count()).toBe(11);
    await page.selectOption('#option-resolution', '2K');
    expect(await page.textContent('.price')).toBe('Estimated price: $0.101 per image');
    await page.selectOption('#model', 'nano-fruit-pro');
    await page.selectOption('#option-resolution', '4K');
    expect(await page.textContent('.price')).toBe('Estimated price: $0.240 per image');
    expect(await page.locator('#quality').count()).toBe(0);
    expect(await page.getAttribute('#lane-status', 'data-ready')).toBe('false');
    await page.selectOption('#lane', 'api');

    await status.locator('a', { hasText: 'Settings' }).click();
    await page.waitForURL(/\/settings#lane-api$/);
    const row = page.locator('#lane-api');
    await page.locator('#lane-api[data-target="true"]').waitFor();
    expect(await row.locator('.lane-reason').textContent()).toContain('OMNI_API_KEY');
    expect(await row.locator('.state-badge').textContent()).toBe('needs a credential');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('lane-api');
  });
});
