import { mergeCodeTables, ServiceError as AnyServiceError, SHARED_CODES, spec, type CodeSpec, isCodeOf } from '../common/errors.js';

// The manager's one table of error codes: the shared codes (common/errors.ts) and its own.

const MANAGER_CODES = {
  // Workers (ours).
  INSTANCE_URL_NOT_ALLOWED: spec(400, 'bad_request', 'A worker URL must be plain http on a loopback address.'),
  INSTANCE_NOT_FOUND: spec(404, 'bad_request', 'No such worker instance.'),
  INSTANCE_EXISTS: spec(409, 'bad_request', 'That worker instance is already followed.'),
  INSTANCE_NOT_MANAGED: spec(409, 'bad_request', 'The manager did not launch this worker, so it cannot start or stop it.'),
  INSTANCE_UNREACHABLE: spec(502, 'unreachable', 'The worker did not answer as an agent chat server.'),
} as const satisfies Record<string, CodeSpec>;

export const ERROR_CODES = mergeCodeTables(SHARED_CODES, MANAGER_CODES);

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode => isCodeOf(ERROR_CODES, value);

/** The manager's ServiceError: the common one with its codes (`instanceof` holds for any ServiceError with one of them). */
export class ServiceError extends AnyServiceError<ErrorCode> {
  static override readonly codes = ERROR_CODES;

  static override [Symbol.hasInstance](value: unknown): value is ServiceError {
    return value instanceof AnyServiceError && isErrorCode(value.code);
  }
}
