import { mergeCodeTables, ServiceError as AnyServiceError, SHARED_CODES, spec, type CodeSpec, isCodeOf } from '../common/errors.js';

// The chat server's one table of error codes: the shared codes (common/errors.ts) and its own.

const CHAT_CODES = {
  // Goals and PABCD orchestration (ours; the spec names none).
  GOAL_ACTIVE: spec(409, 'bad_request', 'A goal is already active; replace it explicitly.'),
  GOAL_NOT_FOUND: spec(404, 'bad_request', 'There is no current goal.'),
  GOAL_STATE_CONFLICT: spec(409, 'bad_request', 'The goal is not in a state that allows this.'),
  GOAL_EVIDENCE_REQUIRED: spec(409, 'bad_request', 'The latest checkpoint carries no evidence.'),
  ORC_TRANSITION_INVALID: spec(409, 'bad_request', 'The orchestration cannot move to that phase from where it is.'),
  ORC_PHASE_RUNNING: spec(409, 'bad_request', 'The current phase is still running.'),
  SESSION_BUSY: spec(409, 'bad_request', 'The session has a running or waiting answer, or the open goal or orchestration runs in it.'),
} as const satisfies Record<string, CodeSpec>;

export const ERROR_CODES = mergeCodeTables(SHARED_CODES, CHAT_CODES);

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode => isCodeOf(ERROR_CODES, value);

/** The chat server's ServiceError: the common one with its codes (`instanceof` holds for any ServiceError with one of them). */
export class ServiceError extends AnyServiceError<ErrorCode> {
  static override readonly codes = ERROR_CODES;

  static override [Symbol.hasInstance](value: unknown): value is ServiceError {
    return value instanceof AnyServiceError && isErrorCode(value.code);
  }
}
