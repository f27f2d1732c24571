import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from './errors.js';
import { sendError } from './http-errors.js';

export interface SecurityOptions {
  /**
   * Extra origins (e.g. `http://studio.example:3333`) whose host names are
   * accepted in `Host` and whose requests may change state.
   */
  allowedOrigins: readonly string[];
  /** When set, every request must carry it (`Authorization: Bearer …`, or on GET/HEAD `?token=` for EventSource). */
  token?: string;
  /** GET (and HEAD) paths served without the token (a page's own static files, which hold no data). */
  publicPaths?: readonly string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Reads: HEAD is GET without the body, so it follows GET's rules (public paths, a query token). */
const READS = new Set(['GET', 'HEAD']);

/**
 * A Host header parsed as the URL standard parses a host (`localhost:3333` →
 * host `localhost:3333`, hostname `localhost`; `[::1]:80` → `[::1]`), or
 * undefined when it is not exactly a host: `[::1].evil.example`, `[::1]evil`,
 * userinfo, a path. Hand-splitting on `:` and `]` is what let those through.
 */
export function parseHost(hostHeader: string): { host: string; hostname: string } | undefined {
  if (!hostHeader || /[\s/\\?#@]/.test(hostHeader)) return undefined;
  try {
    const url = new URL(`http://${hostHeader}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    return { host: url.host, hostname: url.hostname };
  } catch {
    return undefined;
  }
}

export const isLoopbackName = (name: string): boolean =>
  LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);

export const isLoopbackAddress = (address: string): boolean =>
  address === '::1' || address === 'localhost' || /^127\./.test(address) || address === '::ffff:127.0.0.1';

/** An origin in its serialized form (`scheme://host[:port]`), or undefined when it is not one. */
function normalizedOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/** How many Host headers the request carried (RFC 9112: more than one is a 400). */
function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index].toLowerCase() === 'host') count += 1;
  return count;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  // A query token only on reads (EventSource cannot send headers); writes must use the header.
  if (!READS.has(request.method)) return undefined;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.token === 'string' ? query.token : undefined;
}

/** A URL with any `token` query value masked, for logs. */
export const redactTokenInUrl = (url: string): string => url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');

/**
 * DNS-rebinding and CSRF protection, and the access token for non-loopback
 * binds. Runs before routing so unknown routes are protected too. The Host
 * allow-list applies when no token is set: with one, every request must
 * prove it, which a rebinding page cannot.
 */
export function installSecurity(app: FastifyInstance, options: SecurityOptions): void {
  const allowedOrigins = new Set(options.allowedOrigins.map(normalizedOrigin).filter((origin): origin is string => origin !== undefined));
  const allowedHostNames = new Set([...allowedOrigins].map((origin) => new URL(origin).hostname));
  const tokenDigest = options.token ? digest(options.token) : undefined;
  const publicPaths = new Set(options.publicPaths ?? []);

  app.addHook('onRequest', async (request, reply) => {
    if (hostHeaderCount(request.raw.rawHeaders) > 1) {
      return sendError(reply, new ServiceError('BAD_REQUEST', 'The request has more than one Host header.'));
    }
    const host = parseHost(request.headers.host ?? '');
    // With a token, a rebinding page cannot authenticate, so any well-formed Host may reach the token check.
    if (!host || (!tokenDigest && !isLoopbackName(host.hostname) && !allowedHostNames.has(host.hostname))) {
      return sendError(reply, new ServiceError('FORBIDDEN_HOST'));
    }

    if (STATE_CHANGING.has(request.method)) {
      const origin = request.headers.origin;
      const fetchSite = request.headers['sec-fetch-site'];
      if (origin !== undefined) {
        // The whole origin counts: this server speaks plain HTTP, so `https://` + its own host is another origin.
        const from = normalizedOrigin(origin);
        if (!from || (from !== `http://${host.host}` && !allowedOrigins.has(from))) {
          return sendError(reply, new ServiceError('FORBIDDEN_ORIGIN'));
        }
      } else if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
        return sendError(reply, new ServiceError('FORBIDDEN_ORIGIN'));
      }
    }

    if (tokenDigest && !(READS.has(request.method) && publicPaths.has(request.url.split('?')[0]))) {
      const presented = presentedToken(request);
      if (!presented || !timingSafeEqual(digest(presented), tokenDigest)) {
        return sendError(reply, new ServiceError('TOKEN_REQUIRED'));
      }
    }
  });
}
