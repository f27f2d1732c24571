import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../errors.js';

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The dashboard's icon (web/manager/public), under a fixed name: revalidated like the page. */
const FAVICON = '/favicon.svg';

/**
 * Paths served without the token: the dashboard's own files, which hold no
 * data (the page then sends the token with its requests). The built assets
 * are listed when the server starts.
 */
export function dashboardPublicPaths(webDir: string): string[] {
  let assets: string[] = [];
  try {
    assets = readdirSync(join(webDir, 'assets')).map((name) => `/assets/${name}`);
  } catch {
    // Not built: only the page (which then says so) is public.
  }
  return ['/', FAVICON, ...assets];
}

/**
 * The dashboard, built by Vite into `webDir`: index.html (revalidated on
 * every load) and its content-hashed assets (cached for a year: a new build
 * has new names).
 */
export function registerDashboardRoutes(app: FastifyInstance, webDir: string): void {
  app.get('/', async (_request, reply) => {
    let html: Buffer;
    try {
      html = await readFile(join(webDir, 'index.html'));
    } catch {
      throw new ServiceError('SERVICE_UNAVAILABLE', `The dashboard is not built (${webDir}): run npm run build.`);
    }
    return reply
      .headers({ ...SECURITY_HEADERS, 'Cache-Control': 'no-cache' })
      .type('text/html; charset=utf-8')
      .send(html);
  });

  app.get('/assets/:file', async (request, reply) => {
    const { file } = request.params as { file: string };
    // Names only, never paths: nothing outside the assets folder can be named.
    const extension = /^[A-Za-z0-9._-]+(\.[a-z0-9]+)$/.exec(file)?.[1];
    const type = extension && !file.startsWith('.') ? TYPES[extension] : undefined;
    if (!type) throw new ServiceError('NOT_FOUND', 'No such asset.');
    let body: Buffer;
    try {
      body = await readFile(join(webDir, 'assets', file));
    } catch {
      throw new ServiceError('NOT_FOUND', 'No such asset.');
    }
    return reply
      .headers({ ...SECURITY_HEADERS, 'Cache-Control': 'public, max-age=31536000, immutable' })
      .type(type)
      .send(body);
  });

  app.get(FAVICON, async (_request, reply) => {
    let body: Buffer;
    try {
      body = await readFile(join(webDir, FAVICON.slice(1)));
    } catch {
      throw new ServiceError('NOT_FOUND', 'No icon (the dashboard is not built).');
    }
    return reply
      .headers({ ...SECURITY_HEADERS, 'Cache-Control': 'no-cache' })
      .type('image/svg+xml')
      .send(body);
  });
}
