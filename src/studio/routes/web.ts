import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { inCheckout } from '../../common/checkout.js';
import { ServiceError } from '../errors.js';
import { sendError } from '../../common/http-errors.js';
import type { StudioRoutes } from './plugin.js';

// The studio's web UI: the Vite build of web/studio (dist/web/studio), served
// at `/`. index.html answers for every client route of the app and is
// revalidated on each load; the content-hashed files under /assets/ never
// change, so browsers keep them for a year. The security hook of the app
// (Host, Origin, token) runs before these routes like before any other.

/** Paths of the app's views; each answers index.html and the app picks the view from the path. */
export const WEB_CLIENT_ROUTES = ['/', '/node', '/agent', '/video', '/history', '/history/deleted', '/settings'] as const;

/** Where the build is: `SVC_STUDIO_WEB_DIR`, else dist/web/studio of this checkout (the same from src/, dist/ and the bundle). */
export function studioWebDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.SVC_STUDIO_WEB_DIR || inCheckout('dist', 'web', 'studio');
}

const ASSET_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/**
 * Same-origin everything. `img-src data: blob:`: partial renders arrive as
 * base64 and reference previews are object URLs. React sets style props
 * through the CSSOM, which `style-src 'self'` allows.
 */
export const WEB_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': WEB_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Hashed names never change: a new build has new names. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * GET paths served without the access token: the page and its built files,
 * which hold no data (the page then sends the token with its API calls, read
 * from its URL's `#token=`). Listed when the app is built; a rebuild needs a
 * restart for its new asset names to be public.
 */
export function studioWebPublicPaths(env: Readonly<Record<string, string | undefined>>): string[] {
  let assets: string[] = [];
  try {
    assets = readdirSync(join(studioWebDir(env), 'assets')).map((name) => `/assets/${name}`);
  } catch {
    // Not built: only the page routes (which then say so) are public.
  }
  return [...WEB_CLIENT_ROUTES, FAVICON_PATH, ...assets];
}

/** Where browsers look for an icon on pages that name none (an image or JSON opened on its own): the app's icon. */
const FAVICON_PATH = '/favicon.ico';

const NOT_BUILT_HTML = (dir: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>svc studio: web UI not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>The web UI is not built</h1>
<p>The studio is running, but its browser app is missing from <code>${dir.replace(/[<>&"]/g, '')}</code>.</p>
<p>Build it with <code>npm run build</code> (<code>npm ci</code> does it too), or only the app with <code>node scripts/build-web.mjs studio</code>, then reload this page.</p>
<p>The HTTP API works meanwhile: <a href="/api/health">/api/health</a>.</p>
</body></html>
`;

/** The build is missing: an HTML page for a browser, the usual error shape for anything else. */
function notBuilt(request: FastifyRequest, reply: FastifyReply, dir: string): FastifyReply {
  const error = new ServiceError('SERVICE_UNAVAILABLE', `The studio's web UI is not built (${dir}): run npm run build.`, {
    details: { webDir: dir },
  });
  if (!(request.headers.accept ?? '').includes('text/html')) return sendError(reply, error);
  // The page's only style is inline, so this answer gets its own policy.
  return reply
    .code(503)
    .headers({
      ...SECURITY_HEADERS,
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'cache-control': 'no-store',
    })
    .type('text/html; charset=utf-8')
    .send(NOT_BUILT_HTML(dir));
}

/** index.html, revalidated on each load; `status` 404 serves the app for a page it does not have (it shows its not-found view). */
async function sendIndex(dir: string, request: FastifyRequest, reply: FastifyReply, status = 200): Promise<FastifyReply> {
  let html: Buffer;
  try {
    html = await readFile(join(dir, 'index.html'));
  } catch {
    return notBuilt(request, reply, dir);
  }
  const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"`;
  reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-cache', etag });
  if (status === 200 && request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/**
 * The app's answer for a page no route has: a browser asking for HTML (outside /api/) gets the app
 * with 404, which shows its own not-found view, never a raw JSON error. Anything else (API
 * paths, other clients) keeps the usual ROUTE_NOT_FOUND. It runs as the not-found handler, so
 * router-level failures (a path part too long: 414) keep their own answer.
 */
export function studioNotFoundPage(env: Readonly<Record<string, string | undefined>>) {
  const dir = studioWebDir(env);
  return (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined => {
    const path = request.url.split('?')[0] ?? '';
    const wantsPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !path.startsWith('/api/') &&
      (request.headers.accept ?? '').includes('text/html');
    return wantsPage ? sendIndex(dir, request, reply, 404) : undefined;
  };
}

/** `GET /`, the client routes and `/assets/:file`. */
export const webRoutes: StudioRoutes = async (app, { ctx }) => {
  const dir = studioWebDir(ctx.env);
  for (const path of WEB_CLIENT_ROUTES) app.get(path, (request, reply) => sendIndex(dir, request, reply));

  app.get(FAVICON_PATH, async (_request, reply) => {
    // The build names its icon by content (favicon-<hash>.svg); an SVG answers for the .ico path in every current browser.
    let name: string | undefined;
    try {
      name = readdirSync(join(dir, 'assets')).find((file) => /^favicon-[A-Za-z0-9_-]+\.svg$/.test(file));
    } catch {
      name = undefined;
    }
    if (!name) throw new ServiceError('NOT_FOUND', 'No favicon: the web UI is not built.');
    return reply
      .headers({ ...SECURITY_HEADERS, 'cache-control': 'public, max-age=86400' })
      .type(ASSET_TYPES['.svg'])
      .send(await readFile(join(dir, 'assets', name)));
  });

  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const { file } = request.params;
    // A plain name, never a path: nothing outside the assets folder can be named.
    const extension = /^[A-Za-z0-9][A-Za-z0-9._-]*(\.[a-z0-9]+)$/.exec(file)?.[1];
    const type = extension && !file.includes('..') ? ASSET_TYPES[extension] : undefined;
    if (!type) throw new ServiceError('NOT_FOUND', `No asset ${file}.`);
    let body: Buffer;
    try {
      body = await readFile(join(dir, 'assets', file));
    } catch {
      throw new ServiceError('NOT_FOUND', `No asset ${file}.`);
    }
    return reply
      .headers({ ...SECURITY_HEADERS, 'cache-control': ASSET_CACHE })
      .type(type)
      .send(body);
  });
};
