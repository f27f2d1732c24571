import type { FastifyError, FastifyReply } from 'fastify';
import { ServiceError, type SharedCode } from './errors.js';
import { isStorageFull, storageFullError, type StorageSpot } from './storage-full.js';

/** Sends the one error shape. Used by the error handler and by routes that answer errors themselves. */
export function sendError(reply: FastifyReply, error: ServiceError<string>): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).type('application/json').send(error.toBody());
}

const FASTIFY_CODES: Record<string, SharedCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_VALIDATION: 'BAD_REQUEST',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

/**
 * Maps anything thrown inside a request (or a job) to a ServiceError without leaking internals.
 * `storage`: where the server keeps its files, which a full-disk error names.
 */
export function toServiceError(error: unknown, storage?: StorageSpot): ServiceError<string> {
  if (error instanceof ServiceError) return error;
  if (isStorageFull(error)) return storageFullError(storage);
  const fastifyError = error as FastifyError;
  const mapped = fastifyError?.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new ServiceError(mapped, mapped === 'BAD_REQUEST' ? fastifyError.message : undefined);
  // A JSON body that fails to parse raises a SyntaxError with status 400.
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) return new ServiceError('INVALID_JSON');
  return new ServiceError('INTERNAL_ERROR');
}
