import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { onTestFailed } from 'vitest';
import type { EventChannelOptions } from '../../src/common/events/types.js';
import { saveAsset } from '../../src/studio/assets.js';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';
import { ensureStudioBuild } from './build.js';

// A real demo studio (every simulator in-process, real HTTP) serving the built
// web UI, and Debian's chromium driving it.

export { CHROMIUM_ARGS, launchBrowser } from '../helpers/browser.js';

/** Where the tests put their screenshots (one of each view is copied to docs/screenshots by hand). */
export const SCREENSHOT_DIR = process.env.SVC_SCREENSHOT_DIR ?? resolve(import.meta.dirname, '../../dist/web-screenshots');

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: options.fullPage ?? false });
}

/**
 * When the running test fails, keeps what the page showed: a screenshot
 * (`failed-<name>.png`) and, on stderr, the URL, the open dialogs and the
 * text of every `[role=status]` (a flaky run on CI says where it stood).
 */
export function keepPageOnFailure(page: () => Page | undefined, name: string): void {
  onTestFailed(async () => {
    const current = page();
    if (!current || current.isClosed()) return;
    await screenshot(current, `failed-${name}`).catch(() => undefined);
    const state = await current
      .evaluate(() => ({
        dialogs: Array.from(document.querySelectorAll('dialog[open]'), (dialog) => dialog.textContent?.slice(0, 300)),
        status: Array.from(document.querySelectorAll('[role=status]'), (status) => status.textContent?.slice(0, 200)),
      }))
      .catch((error: unknown) => ({ unreadable: String(error) }));
    process.stderr.write(`[${name}] page at failure: ${current.url()} ${JSON.stringify(state)}\n`);
  });
}

export interface DemoStudio {
  readonly studio: RunningStudio;
  readonly url: string;
  readonly home: string;
  /** Destroys the sockets of the server's open event streams (a network cut on the server side). */
  killEventStreams(): void;
  /** POST with a JSON body, as a plain HTTP client (the CLI, a script) would. */
  post(path: string, body: unknown): Promise<Response>;
  stop(): Promise<void>;
}

export interface DemoStudioOptions {
  /** Leave the demo's API keys out: key-based lanes then need a credential. */
  withoutKeys?: boolean;
  token?: string;
  events?: EventChannelOptions;
  /** Share the simulators of another demo studio. */
  demo?: Demo;
  /** The studio's PATH (default the test's): an empty folder leaves it without programs such as xdg-open. */
  path?: string;
  /** More variables of the studio's environment (a key set there is `source: env`, locked). */
  env?: Record<string, string>;
}

export async function startDemoStudio(options: DemoStudioOptions = {}): Promise<DemoStudio> {
  await ensureStudioBuild();
  const home = mkdtempSync(join(tmpdir(), 'svc-web-'));
  const env = { ...options.env, SVC_HOME: home, PATH: options.path ?? process.env.PATH };
  const demo = options.demo ?? (await startDemo(env));
  const ownDemo = options.demo === undefined;
  const studio = await startStudio({
    env,
    port: 0,
    descriptor: false,
    token: options.token,
    events: options.events,
    demo: options.withoutKeys ? { ...demo.options, keys: {} } : demo.options,
    onClose: ownDemo ? () => demo.close() : undefined,
  });
  const streams = new Set<Socket>();
  studio.app.server.on('request', (request: { url?: string; socket: Socket }) => {
    if (!request.url?.startsWith('/api/events')) return;
    streams.add(request.socket);
    request.socket.once('close', () => streams.delete(request.socket));
  });
  return {
    studio,
    url: studio.url,
    home,
    killEventStreams() {
      for (const socket of streams) socket.destroy();
      streams.clear();
    },
    post: (path, body) =>
      fetch(`${studio.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
        body: JSON.stringify(body),
      }),
    async stop() {
      await studio.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Starts the demo's simulators alone, to share between studios. */
export const startSharedDemo = (): Promise<Demo> => startDemo({ SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-web-demo-')) });

/**
 * Saves `count` small images straight into history through the studio's own
 * save path (the same as a finished job's), oldest first, one second apart.
 */
export async function seedHistory(
  studio: RunningStudio,
  count: number,
  describe: (index: number) => { prompt: string; lane?: string; session?: string },
): Promise<void> {
  const sharp = (await import('sharp')).default;
  const start = Date.UTC(2026, 0, 1, 12, 0, 0);
  for (let index = 0; index < count; index += 1) {
    const { prompt, lane = 'api', session } = describe(index);
    const shade = (index * 47) % 200;
    const bytes = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 40 + shade, g: 200 - shade / 2, b: 120 } } })
      .png()
      .toBuffer();
    await saveAsset(studio.ctx, {
      bytes,
      metadata: {
        prompt,
        lane,
        model: lane === 'oauth' ? 'lang-6-luna' : 'lang-5.6-luna',
        requestId: `seed-${index}`,
        kind: 'generate',
        settings: { size: '1536x1024', quality: 'low', format: 'png', reasoning: 'medium' },
        revisedPrompt: `A simulated image of ${prompt}`,
        ...(session ? { sessionTitle: session } : {}),
        createdAt: new Date(start + index * 1000).toISOString(),
      },
    });
  }
}

/** Waits until the page's stream is open and running jobs were read (the app is ready to use). */
export async function openApp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-connection="open"]');
  await page.waitForSelector('.jobs[data-reconciled="true"], .history, .settings');
}

/** The requestId of Classic's newest job card. */
export const newestJobId = async (page: Page): Promise<string> =>
  (await page.locator('.job').first().getAttribute('data-request-id')) as string;

/** Sends `prompt` from Classic's composer; answers the new card's requestId. */
export async function generate(page: Page, prompt: string): Promise<string> {
  const before = await page.locator('.job').count();
  await page.fill('#prompt', prompt);
  await page.click('.composer button[type="submit"]');
  await page.waitForFunction((count) => document.querySelectorAll('.job').length > count, before);
  return newestJobId(page);
}
