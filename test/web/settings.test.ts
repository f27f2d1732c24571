import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../src/demo/demo.js';
import { launchBrowser, openApp, screenshot, startDemoStudio, startSharedDemo, type DemoStudio } from './helpers.js';

// Settings' keys, quota and account sections in chromium against a demo
// studio. Its simulators take any key but one with "rejected" in it; a key in
// the studio's environment wins over the demo's placeholder and is locked; the
// demo issuer approves a device code by itself about 3 s after issuing it.

const REJECTED = 'bad-rejected-web-key-0001';
const GOOD = 'sim-web-good-key-0001';
const FROM_ENV = 'AIzaSyWebTestBetaKeyFromEnv00001';

interface KeyStatus {
  set: boolean;
  source: string;
  masked: string | null;
  valid: string;
  projectId?: string;
  clientEmail?: string;
}
type KeysStatus = Record<'omni' | 'alpha' | 'beta' | 'cloud', KeyStatus> & { otherKeys: Record<string, KeyStatus> };

describe('Settings: keys, quota and account switching in chromium', () => {
  let demo: Demo;
  let studio: DemoStudio;
  let browser: Browser;
  let page: Page;

  const json = async <T>(path: string, init?: RequestInit): Promise<T> => (await fetch(`${studio.url}${path}`, init)).json() as Promise<T>;
  const keysStatus = () => json<KeysStatus>('/api/keys/status');
  const demoConfig = () => join(studio.home, 'demo', 'config.json');
  const savedKeys = () => (existsSync(demoConfig()) ? readFileSync(demoConfig(), 'utf8') : '');
  const row = (namespace: string) => page.locator(`#key-${namespace}`);

  beforeAll(async () => {
    demo = await startSharedDemo();
    studio = await startDemoStudio({ demo, env: { BETA_API_KEY: FROM_ENV } });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openApp(page, `${studio.url}/settings`);
    await page.waitForSelector('.key-row');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await demo?.close();
  });

  it('lists every key masked, with its source and verdict; a key from the environment is locked', async () => {
    const status = await keysStatus();
    const entries: Array<[string, KeyStatus]> = [
      ...(['omni', 'alpha', 'beta', 'cloud'] as const).map((namespace) => [namespace, status[namespace]] as [string, KeyStatus]),
      ...Object.entries(status.otherKeys),
    ];
    expect(entries.map(([namespace]) => namespace)).toEqual(['omni', 'alpha', 'beta', 'cloud', 'gamma', 'delta', 'epsilon']);
    for (const [namespace, key] of entries) {
      expect(await row(namespace).getAttribute('data-source')).toBe(key.source);
      expect(await row(namespace).getAttribute('data-valid')).toBe(key.valid);
      const facts = await row(namespace).locator('.key-facts').first().textContent();
      if (key.masked) expect(await row(namespace).locator('.key-masked').textContent()).toBe(key.masked);
      expect(facts).toContain(
        { env: 'from the environment', config: 'saved in config.json', demo: "the demo's placeholder", none: 'not set' }[key.source],
      );
    }
    expect(status.beta).toMatchObject({ source: 'env', set: true, valid: 'valid' });
    expect(status.cloud).toMatchObject({ source: 'none', set: false });
    expect(await row('beta').locator('.key-verdict').textContent()).toMatch(/^valid, checked /);
    expect(await row('delta').locator('.key-verdict').textContent()).toContain('unchecked');

    // The environment's key: locked, nothing to change or remove it with.
    expect(await row('beta').locator('.key-locked').textContent()).toBe('locked');
    expect(await row('beta').locator('button').count()).toBe(0);
    expect(await row('beta').textContent()).toContain('BETA_API_KEY');
    // The demo's placeholders can be replaced but not removed (only a saved key can).
    expect(await row('omni').locator('button', { hasText: 'Replace omni key' }).count()).toBe(1);
    expect(await page.locator('.key-remove').count()).toBe(0);
    expect(await page.content()).not.toContain(FROM_ENV);

    const verified = page.waitForResponse((response) => response.url().endsWith('/api/keys/status?verify=1') && response.ok());
    await page.click('#keys .section-head button:has-text("Verify")');
    await verified;
    await page.locator('#keys .section-head button:has-text("Verify"):not([disabled])').waitFor();
  });

  it('refuses a key the simulator rejects with its code and saves nothing; saves a good one masked; removes it', async () => {
    await row('omni').locator('button', { hasText: 'Replace omni key' }).click();
    const input = row('omni').locator('input[type="password"]');
    expect(await input.getAttribute('id')).toBeTruthy();
    expect(
      await row('omni')
        .locator(`label[for="${await input.getAttribute('id')}"]`)
        .textContent(),
    ).toBe('New omni key');
    await input.fill(REJECTED);
    await row('omni').locator('button', { hasText: 'Check and save' }).click();
    const notice = row('omni').locator('.error-notice');
    await notice.waitFor();
    expect(await notice.getAttribute('data-code')).toBe('AUTH_API_KEY_INVALID');
    expect(await notice.locator('.error-code').textContent()).toBe('AUTH_API_KEY_INVALID');
    expect(await notice.textContent()).toContain('The omni key was not saved');
    // Nothing saved: the studio still runs on the demo's placeholder, and the page never shows the key.
    expect((await keysStatus()).omni.source).toBe('demo');
    expect(savedKeys()).not.toContain(REJECTED);
    expect(await row('omni').getAttribute('data-source')).toBe('demo');
    expect(await page.evaluate(() => document.body.innerText)).not.toContain(REJECTED);

    // A good key: checked, saved, shown masked; the lanes are read again.
    const providersRead = page.waitForResponse((response) => response.url().endsWith('/api/providers'));
    await input.fill(GOOD);
    await row('omni').locator('button', { hasText: 'Check and save' }).click();
    await page.locator('#key-omni[data-source="config"]').waitFor();
    await providersRead;
    const saved = (await keysStatus()).omni;
    expect(saved).toMatchObject({ source: 'config', set: true, valid: 'valid', masked: 'sim…001' });
    expect(await row('omni').locator('.key-masked').textContent()).toBe('sim…001');
    expect(await row('omni').locator('[role="status"]').textContent()).toBe('Saved: sim…001');
    expect(await row('omni').locator('input[type="password"]').count()).toBe(0);
    expect(JSON.parse(savedKeys()).keys.omni).toBe(GOOD);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain(GOOD);
    // Only the saved key can be removed; the environment's still cannot.
    expect(await page.locator('.key-remove').count()).toBe(1);
    expect(await row('beta').locator('.key-remove').count()).toBe(0);

    await row('omni').locator('.key-remove').click();
    await row('omni')
      .locator('button.danger', { hasText: /^Remove$/ })
      .click();
    await page.locator('#key-omni[data-source="demo"]').waitFor();
    expect(JSON.parse(savedKeys()).keys?.omni).toBeUndefined();
  });

  it('saves a service account from its key file, showing its project and email, never its private key', async () => {
    const account = demo.suite.simulators.beta.serviceAccount;
    await row('cloud').locator('button', { hasText: 'Set cloud key' }).click();
    await row('cloud')
      .locator('input[type="file"]')
      .setInputFiles({
        name: 'service-account.json',
        mimeType: 'application/json',
        buffer: Buffer.from(demo.suite.simulators.beta.serviceAccountJson()),
      });
    await row('cloud').locator('button', { hasText: 'Check and save' }).click();
    await page.locator('#key-cloud[data-source="config"]').waitFor();
    const facts = await row('cloud').textContent();
    expect(facts).toContain(account.project_id);
    expect(facts).toContain(account.client_email);
    const content = await page.content();
    expect(content).not.toContain(account.private_key.slice(40, 80));
    expect(content).not.toContain(account.private_key_id);
    expect((await keysStatus()).cloud).toMatchObject({ source: 'config', valid: 'valid', projectId: account.project_id });
  });

  it('draws the quota bars, with alpha billing in dollars', async () => {
    // The simulator's billing meter: $42.50 of $300 used.
    const billing = new URL(demo.options.upstreams['alpha.billing']);
    const set = await fetch(`${billing.origin}/__sim/alpha/billing`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usedCents: 4250, limitCents: 30_000 }),
    });
    expect(set.ok).toBe(true);
    await page.click('#quota .section-head button');
    await page.locator('#quota-alpha .quota-billing', { hasText: '$42.50 of $300.00 used' }).waitFor();

    const quota =
      await json<
        Record<
          'oauth' | 'alpha' | 'epsilon',
          { authenticated: boolean; windows: Array<{ label: string; percent: number }>; billing?: { usedUsd: number; limitUsd: number } }
        >
      >('/api/quota');
    expect(quota.alpha.billing).toEqual({ usedUsd: 42.5, limitUsd: 300 });
    const billingMeter = page.locator('#quota-alpha .quota-billing meter');
    expect(Number(await billingMeter.getAttribute('value'))).toBe(42.5);
    expect(Number(await billingMeter.getAttribute('max'))).toBe(300);
    expect(await billingMeter.getAttribute('aria-label')).toBe('Alpha (alpha) billing: $42.50 of $300.00 used');
    for (const id of ['oauth', 'alpha', 'epsilon'] as const) {
      const card = page.locator(`#quota-${id}`);
      expect(await card.getAttribute('data-authenticated')).toBe(String(quota[id].authenticated));
      const meters = card.locator('.quota-bars meter');
      expect(await meters.count()).toBe(quota[id].windows.length);
      for (const [index, bar] of quota[id].windows.entries()) {
        expect(Number(await meters.nth(index).getAttribute('value'))).toBe(bar.percent);
        expect(await meters.nth(index).getAttribute('aria-label')).toContain(`${Math.round(bar.percent)}% used`);
      }
    }
    expect(await page.locator('#quota-oauth .quota-bar').evaluateAll((bars) => bars.map((bar) => bar.getAttribute('data-window')))).toEqual(
      ['5h', '7d'],
    );
    expect(await page.locator('#quota-alpha .quota-bar[data-window="monthly"] .quota-value').textContent()).toContain('resets');
  });

  it('switches the chat account by a device code: the code and the link, polled to complete', async () => {
    const polls: number[] = [];
    const onRequest = (request: { url(): string; method(): string }) => {
      if (request.method() === 'GET' && /\/api\/auth\/switch\/[^/]+$/.test(request.url())) polls.push(Date.now());
    };
    page.on('request', onRequest);
    try {
      const before = await json<{ account: { email: string } | null }>('/api/oauth/status');
      expect(await page.locator('.oauth-status .oauth-account').textContent()).toContain(before.account?.email);

      const answer = page.waitForResponse(
        (response) => response.url().endsWith('/api/auth/switch') && response.request().method() === 'POST',
      );
      await page.click('#accounts button[data-provider="oauth"]');
      const started = (await (await answer).json()) as { sessionId: string; userCode: string; verificationUrl: string };
      const dialog = page.locator('dialog.switch-dialog[open]');
      await dialog.waitFor();
      expect(await dialog.locator('.user-code').textContent()).toBe(started.userCode);
      const link = dialog.locator('a.switch-link');
      expect(await link.getAttribute('href')).toBe(started.verificationUrl);
      expect(started.verificationUrl).toContain('/codex/device');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await dialog.locator('.switch-status').getAttribute('data-status')).toBe('pending');
      await screenshot(page, 'settings-switch-pending');

      await page.locator('dialog.switch-dialog[data-status="complete"]').waitFor({ timeout: 15_000 });
      const done = await json<{ status: string; email?: string }>(`/api/auth/switch/${started.sessionId}`);
      expect(done.status).toBe('complete');
      expect(await dialog.locator('.switch-status').textContent()).toContain(`Signed in as ${done.email}`);
      // Polled about every 3 s, not faster.
      expect(polls.length).toBeGreaterThanOrEqual(2);
      for (let index = 1; index < polls.length; index += 1) expect(polls[index] - polls[index - 1]).toBeGreaterThan(2500);

      await dialog.locator('button', { hasText: 'Close' }).click();
      await page.locator('dialog.switch-dialog').waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-provider'))).toBe('oauth');
    } finally {
      page.off('request', onRequest);
    }
  });

  it('cancels a waiting sign-in when the dialog is closed with Escape', async () => {
    const answer = page.waitForResponse(
      (response) => response.url().endsWith('/api/auth/switch') && response.request().method() === 'POST',
    );
    await page.click('#accounts button[data-provider="alpha"]');
    const started = (await (await answer).json()) as { sessionId: string; userCode: string };
    await page.locator('dialog.switch-dialog[open]').waitFor();
    const cancelled = page.waitForResponse(
      (response) => response.url().endsWith(`/api/auth/switch/${started.sessionId}`) && response.request().method() === 'DELETE',
    );
    await page.keyboard.press('Escape');
    expect(((await (await cancelled).json()) as { cancelled: boolean }).cancelled).toBe(true);
    await page.locator('dialog.switch-dialog').waitFor({ state: 'detached' });
    // A cancelled sign-in is forgotten at once.
    expect((await json<{ error?: { code: string } }>(`/api/auth/switch/${started.sessionId}`)).error?.code).toBe('AUTH_SWITCH_NOT_FOUND');
  });

  it('shows the prompt builder section (no section left as not in this build), and fits a phone', async () => {
    await page.locator('#prompt-builder #pb-backend').waitFor();
    expect(await page.locator('.pending-list').count()).toBe(0);
    await page.locator('#quota-alpha .quota-billing').waitFor();
    // From the top, nothing focused: the sticky bar stays where it belongs in a full-page shot.
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      window.scrollTo(0, 0);
    });
    await screenshot(page, 'settings-full', { fullPage: true });

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      await openApp(phone, `${studio.url}/settings`);
      await phone.waitForSelector('#quota-alpha .quota-billing');
      await phone.locator('#key-omni button', { hasText: 'Replace omni key' }).click();
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(phone, 'settings-390', { fullPage: true });
    } finally {
      await phone.close();
    }
  });
});

describe('Settings without keys, in chromium', () => {
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

  it('shows a key that is not set, offers to set it, and a lane without a credential as not signed in', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openApp(page, `${studio.url}/settings`);
    await page.waitForSelector('#quota-epsilon');
    const omni = page.locator('#key-omni');
    expect(await omni.getAttribute('data-source')).toBe('none');
    expect(await omni.locator('.key-verdict').textContent()).toBe('not set');
    expect(await omni.locator('button', { hasText: 'Set omni key' }).count()).toBe(1);
    expect(await omni.locator('.key-remove').count()).toBe(0);
    const quota = (await (await fetch(`${studio.url}/api/quota`)).json()) as { epsilon: { authenticated: boolean; reason?: string } };
    expect(quota.epsilon.authenticated).toBe(false);
    const epsilon = page.locator('#quota-epsilon');
    expect(await epsilon.getAttribute('data-authenticated')).toBe('false');
    expect(await epsilon.locator('.quota-signed-out').textContent()).toBe('not signed in');
    if (quota.epsilon.reason) expect(await epsilon.textContent()).toContain(quota.epsilon.reason);
    await page.close();
  });
});
