import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ServiceError } from './errors.js';
import { boundHalfOpen } from './half-open.js';
import { JSON_BODY_MAX_DEPTH, brokenJsonBound, jsonBoundMessage } from './json-bounds.js';
import { sendError, toServiceError } from './http-errors.js';
import type { StorageSpot } from './storage-full.js';
import { installSecurity, redactTokenInUrl, type SecurityOptions } from './http-security.js';

export interface HttpAppOptions {
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  security: SecurityOptions;
  /** Log every request; without it only warnings and errors are logged (to stderr). */
  logger?: boolean;
  /** Most time to receive a whole request, headers and body (default 30 s); then Node answers 408 and closes. */
  requestTimeoutMs?: number;
  /** Where the server keeps its files: a full-disk error names its free space and the reserve wanted. */
  storage?: StorageSpot;
  /** An answer of the server's own for an unknown route (a web app's not-found page); undefined keeps ROUTE_NOT_FOUND. */
  notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined;
}

/** Bounds on what a connection may hold, shared by both servers. */
export const CONNECTION_LIMITS = {
  /** A request (headers and body) must arrive within this; a stalled upload cannot hold a socket for ever. */
  requestTimeoutMs: 30_000,
  /** The headers alone must arrive within this (at most the request timeout). */
  headersTimeoutMs: 10_000,
  /** Open connections at once: event streams (at most 256), requests and idle keep-alive sockets. */
  maxConnections: 1024,
  /** Of those, connections that have not sent a whole request head yet (past it the oldest is closed). */
  halfOpenShare: 512,
} as const;

/**
 * Routes here validate with zod (parseWith) and answer with JSON.stringify; none declares a JSON
 * schema. Naming these builders keeps Fastify from loading Ajv and fast-json-stringify, about a
 * third of its start-up; a route that declared a schema would fail at registration, loudly.
 */
function noJsonSchemas(): never {
  throw new Error('Routes validate with zod (parseWith); Fastify JSON schemas are not compiled here.');
}

/** A failure that only means the client went away mid-request: nobody to answer, nothing to report. */
function isClientAbort(error: unknown, request: FastifyRequest): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (
    request.raw.aborted ||
    code === 'ECONNRESET' ||
    code === 'ECONNABORTED' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    (error as Error)?.message === 'aborted'
  );
}

/**
 * The Fastify instance both servers start from: the error shape for every
 * failure (including unknown routes, bad JSON, oversized bodies) and the
 * Host / Origin / token protections.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const requestTimeout = options.requestTimeoutMs ?? CONNECTION_LIMITS.requestTimeoutMs;
  const app = Fastify({
    requestTimeout,
    // Node checks request timeouts on this interval (its default, 30 s, would let a stall run a minute).
    http: {
      headersTimeout: Math.min(CONNECTION_LIMITS.headersTimeoutMs, requestTimeout),
      connectionsCheckingInterval: Math.min(1000, requestTimeout),
    },
    // Errors always reach stderr (a failing background task must not vanish); requests only with `logger`.
    logger: {
      level: options.logger ? 'info' : 'warn',
      stream: process.stderr,
      // Only what a request log needs; a `?token=` never reaches it.
      serializers: {
        req: (request: { method: string; url: string; hostname?: string; ip?: string }) => ({
          method: request.method,
          url: redactTokenInUrl(request.url),
          hostname: request.hostname,
          remoteAddress: request.ip,
        }),
      },
    },
    bodyLimit: options.bodyLimit,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
    // Closing keeps in-flight requests until they finish; idle keep-alive sockets go at once.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Router-level failures (undecodable URL, over-long path part) get the one error shape too.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, toServiceError(error, options.storage));
    },
  });

  app.server.maxConnections = CONNECTION_LIMITS.maxConnections;
  boundHalfOpen(app.server, CONNECTION_LIMITS.halfOpenShare);

  // Ordinary clients send `Content-Type: application/json` on a DELETE or a body-less POST: an empty
  // body is no body, not bad JSON. Anything else goes to Fastify's own parser (prototype-poisoning safe),
  // then its depth is bounded: every document a server stores comes from a body, and a deep one would
  // break recursive walks (JSON.stringify among them) and SQLite's JSON functions over the stored row.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const broken = brokenJsonBound(value, { maxDepth: JSON_BODY_MAX_DEPTH });
      if (broken)
        return done(
          new ServiceError('JSON_TOO_DEEP', jsonBoundMessage('The request body', broken), {
            details: { maxDepth: JSON_BODY_MAX_DEPTH, path: broken.path },
          }),
          undefined,
        );
      done(null, value);
    });
  });

  app.setErrorHandler((error, request, reply) => {
    if (isClientAbort(error, request)) {
      // Not an error of ours: the client left while sending its body.
      request.log.info({ reason: (error as Error)?.message }, 'client aborted the request');
      reply.raw.destroy();
      return;
    }
    const serviceError = toServiceError(error, options.storage);
    if (serviceError.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'unhandled error');
    if (reply.raw.headersSent) {
      // A streaming answer already started; the stream's own code reports errors.
      reply.raw.destroy();
      return;
    }
    return sendError(reply, serviceError);
  });

  app.setNotFoundHandler(
    (request, reply) =>
      options.notFoundPage?.(request, reply) ??
      sendError(reply, new ServiceError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );

  installSecurity(app, options.security);

  // Bodies are read as sent: a compressed one would only fail later as "bad JSON", or be stored as
  // its compressed bytes. Refused up front, by name.
  app.addHook('onRequest', async (request, reply) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      return sendError(
        reply,
        new ServiceError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Content-Encoding "${encoding.slice(0, 40)}" is not accepted: send the body uncompressed.`,
          { details: { contentEncoding: encoding.slice(0, 40), accepted: ['identity'] } },
        ),
      );
    }
  });
  return app;
}
