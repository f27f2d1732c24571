import { readFile } from 'node:fs/promises';
import type { ChatRoutes } from './plugin.js';
import { join } from 'node:path';
import { inCheckout } from '../../common/checkout.js';

/** web/chat of the checkout. */
const WEB_DIR = inCheckout('web', 'chat');

/** The page's files; nothing else under web/ is served. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/chat.js': { file: 'chat.js', type: 'text/javascript; charset=utf-8' },
  '/chat.css': { file: 'chat.css', type: 'text/css; charset=utf-8' },
};

/** The page's paths: served without the access token (static files, no data in them). */
export const PAGE_PATHS: ReadonlySet<string> = new Set(Object.keys(FILES));

const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

export const webRoutes: ChatRoutes = async (app) => {
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, async (_request, reply) => reply.headers(PAGE_HEADERS).type(type).send(await readFile(join(WEB_DIR, file))));
  }
};
