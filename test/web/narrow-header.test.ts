import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, startDemoStudio, type DemoStudio } from './helpers.js';

// Issue 46, item 9: at 390 px the header showed Classic, Node and half of Agent; Video, History
// and Settings were off-screen with no hint. Every view's link must be in sight and clickable
// from every view, without sideways scrolling.

const VIEWS = ['Classic', 'Node', 'Agent', 'Video', 'History', 'Settings'];

/** Each header link's label, and whether its whole box is in the window and it is what a tap at its centre hits. */
const links = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLAnchorElement>('.views-nav a')).map((link) => {
      const box = link.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return {
        label: link.textContent,
        inView: box.left >= 0 && box.right <= window.innerWidth && box.top >= 0 && box.bottom <= window.innerHeight && box.width > 0,
        tappable: hit !== null && link.contains(hit),
      };
    }),
  );

describe('the header at 390 px', () => {
  let studio: DemoStudio;
  let browser: Browser;

  beforeAll(async () => {
    studio = await startDemoStudio();
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  it('shows every view’s link, in sight and tappable, on every view', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      await openApp(page, studio.url);
      for (const view of VIEWS) {
        expect(await links(page)).toEqual(VIEWS.map((label) => ({ label, inView: true, tappable: true })));
        await page.locator('.views-nav a', { hasText: view }).tap();
        await page.waitForFunction((label) => document.querySelector('.views-nav a[aria-current="page"]')?.textContent === label, view);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      }
      expect(await links(page)).toEqual(VIEWS.map((label) => ({ label, inView: true, tappable: true })));
    } finally {
      await page.close();
    }
  }, 90_000);
});
