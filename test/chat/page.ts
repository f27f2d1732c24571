import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { ensureChatBuild } from '../web/build.js';
import { startTestChat, type TestChatServer } from './helpers.js';

// The chat page (the built React app, dist/web/chat) open in chromium against a
// test chat server, ready and connected to its event stream.

export interface ChatPage {
  readonly server: TestChatServer;
  readonly browser: Browser;
  readonly page: Page;
  /** Types `text` into the prompt and sends it. */
  send(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function openChatPage(
  options: {
    chat?: Parameters<typeof startTestChat>[0];
    context?: BrowserContextOptions;
    beforeOpen?: (server: TestChatServer) => void;
  } = {},
): Promise<ChatPage> {
  await ensureChatBuild();
  const server = await startTestChat(options.chat);
  options.beforeOpen?.(server);
  const browser = await launchBrowser();
  const page = await (await browser.newContext(options.context)).newPage();
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"][data-connection="open"]');
  return {
    server,
    browser,
    page,
    async send(text) {
      await page.fill('#prompt', text);
      await page.press('#prompt', 'Enter');
    },
    async close() {
      await browser.close();
      await server.stop();
    },
  };
}
