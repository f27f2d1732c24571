import Fastify, { type FastifyInstance } from 'fastify';
import { ServiceError } from './errors.js';
import { sendError, toServiceError } from './http-errors.js';
import { installSecurity, redactTokenInUrl, type SecurityOptions } from './http-security.js';

export interface HttpAppOptions {
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  security: SecurityOptions;
  /** Log every request; without it only warnings and errors are logged (to stderr). */
  logger?: boolean;
}

/**
 * The Fastify instance both servers start from: the error shape for every
 * failure (including unknown routes, bad JSON, oversized bodies) and the
 * Host / Origin / token protections.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const app = Fastify({
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
    // Closing keeps in-flight requests until they finish; idle keep-alive sockets go at once.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Router-level failures (undecodable URL, over-long path part) get the one error shape too.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, toServiceError(error));
    },
  });

  app.setErrorHandler((error, request, reply) => {
    const serviceError = toServiceError(error);
    if (serviceError.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'unhandled error');
    if (reply.raw.headersSent) {
      // A streaming answer already started; the stream's own code reports errors.
      reply.raw.destroy();
      return;
    }
    return sendError(reply, serviceError);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ServiceError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );

  installSecurity(app, options.security);
  return app;
}
