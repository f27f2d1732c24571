import { readFile } from 'node:fs/promises';
import type { ChatRoutes } from './plugin.js';
import { join } from 'node:path';
import { inCheckout } from '../../common/checkout.js';
import { ServiceError } from '../errors.js';

/** The page, built by Vite from web/chat (scripts/build-web.mjs) with fixed file names (web/chat/vite.config.ts). */
const WEB_DIR = inCheckout('dist', 'web', 'chat');

/** The page's files; nothing else is served. Names are fixed, so they are revalidated on every load. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/assets/chat.js': { file: 'assets/chat.js', type: 'text/javascript; charset=utf-8' },
  '/assets/chat.css': { file: 'assets/chat.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
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
    app.get(path, async (_request, reply) => {
      let body: Buffer;
      try {
        body = await readFile(join(WEB_DIR, file));
      } catch {
        throw new ServiceError('SERVICE_UNAVAILABLE', `The chat page is not built (${WEB_DIR}): run npm run build.`);
      }
      return reply.headers(PAGE_HEADERS).type(type).send(body);
    });
  }
};
