import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { ensureManagerBuild, webDir } from '../web/build.js';
import { startTestManager, type TestManager } from './helpers.js';

// The real dashboard (built as `npm run build` builds it, rebuilt when a source
// is newer) open in chromium against a test manager following `workers`, its
// own event channel open.

export interface Dashboard {
  readonly manager: TestManager;
  readonly browser: Browser;
  readonly page: Page;
  close(): Promise<void>;
}

export async function openDashboard(
  workers: readonly string[],
  options: { viewport?: { width: number; height: number }; beforeOpen?: (manager: TestManager) => void } = {},
): Promise<Dashboard> {
  await ensureManagerBuild();
  const manager = await startTestManager({ webDir: webDir('manager'), workers: [...workers] });
  options.beforeOpen?.(manager);
  const browser = await launchBrowser();
  const page = await browser.newPage(options.viewport ? { viewport: options.viewport } : {});
  await page.goto(manager.url);
  await page.waitForSelector('.app[data-ready="true"][data-channel="open"]');
  return {
    manager,
    browser,
    page,
    async close() {
      await browser.close();
      await manager.stop();
    },
  };
}
