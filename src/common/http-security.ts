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
  /** When set, every request must carry it (`Authorization: Bearer …`, or on GET `?token=` for EventSource). */
  token?: string;
  /** GET paths served without the token (a page's own static files, which hold no data). */
  publicPaths?: readonly string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `localhost:3333` → `localhost`; `[::1]:80` → `[::1]`. */
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

export const isLoopbackName = (name: string): boolean =>
  LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);

export const isLoopbackAddress = (address: string): boolean =>
  address === '::1' || address === 'localhost' || /^127\./.test(address) || address === '::ffff:127.0.0.1';

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  // A query token only on reads (EventSource cannot send headers); writes must use the header.
  if (request.method !== 'GET') return undefined;
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
  const allowedOriginHosts = new Set(options.allowedOrigins.map((origin) => originHost(origin)).filter(Boolean));
  const allowedHostNames = new Set([...allowedOriginHosts].map((host) => hostName(host as string)));
  const tokenDigest = options.token ? digest(options.token) : undefined;
  const publicPaths = new Set(options.publicPaths ?? []);

  app.addHook('onRequest', async (request, reply) => {
    const host = request.headers.host ?? '';
    const name = hostName(host);
    // With a token, a rebinding page cannot authenticate, so any Host may reach the token check.
    if (!tokenDigest && !isLoopbackName(name) && !allowedHostNames.has(name)) {
      return sendError(reply, new ServiceError('FORBIDDEN_HOST'));
    }

    if (STATE_CHANGING.has(request.method)) {
      const origin = request.headers.origin;
      const fetchSite = request.headers['sec-fetch-site'];
      if (origin !== undefined) {
        const fromHost = origin === 'null' ? undefined : originHost(origin);
        const sameOrigin = fromHost !== undefined && fromHost === host.toLowerCase();
        if (!sameOrigin && !(fromHost && allowedOriginHosts.has(fromHost))) {
          return sendError(reply, new ServiceError('FORBIDDEN_ORIGIN'));
        }
      } else if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
        return sendError(reply, new ServiceError('FORBIDDEN_ORIGIN'));
      }
    }

    if (tokenDigest && !(request.method === 'GET' && publicPaths.has(request.url.split('?')[0]))) {
      const presented = presentedToken(request);
      if (!presented || !timingSafeEqual(digest(presented), tokenDigest)) {
        return sendError(reply, new ServiceError('TOKEN_REQUIRED'));
      }
    }
  });
}
