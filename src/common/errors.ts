import { spec, type CodeSpec, type CodeTable, type ExitKind } from './error-spec.js';
import { maskCredentials, maskCredentialsIn, maskSecrets, maskSecretsIn } from './secrets.js';

// The error machinery every server shares. Every error answer of every server in
// this project is `{ "error": { "code", "message", "details"? } }` with the status
// its code declares. Each server has one table of codes (studio/errors.ts,
// chat/errors.ts, manager/errors.ts): the shared codes below merged with its own,
// and its own ServiceError class bound to it; `svc` derives its exit codes from
// the studio's.

export { mergeCodeTables, spec, type CodeSpec, type CodeTable, type ExitKind } from './error-spec.js';

/** The codes every server answers: request shape and routing, the local API protection, the event channel, a full disk. */
export const SHARED_CODES = {
  // Request shape and routing (every server).
  BAD_REQUEST: spec(400, 'bad_request', 'The request is not valid.'),
  INVALID_JSON: spec(400, 'bad_request', 'The request body is not valid JSON.'),
  JSON_TOO_DEEP: spec(400, 'bad_request', 'The request body nests deeper than a JSON body may (64 levels).'),
  UNSUPPORTED_MEDIA_TYPE: spec(415, 'bad_request', 'The request body has an unsupported content type.'),
  PAYLOAD_TOO_LARGE: spec(413, 'bad_request', 'The request body is too large.'),
  URI_TOO_LONG: spec(414, 'bad_request', 'A part of the request path is too long.'),
  ROUTE_NOT_FOUND: spec(404, 'bad_request', 'No such route.'),
  METHOD_NOT_ALLOWED: spec(405, 'bad_request', 'That method is not allowed on this route.'),
  NOT_FOUND: spec(404, 'bad_request', 'Not found.'),
  INVALID_FILENAME: spec(400, 'bad_request', 'The file name is not valid.'),
  INTERNAL_ERROR: spec(500, 'internal', 'Internal server error.'),
  SERVICE_UNAVAILABLE: spec(503, 'upstream', 'The service is unavailable.'),

  // Local API protection (common/http-security.ts).
  FORBIDDEN_HOST: spec(403, 'auth', 'The Host header is not a loopback name or a configured origin.'),
  FORBIDDEN_ORIGIN: spec(403, 'auth', 'Cross-origin state-changing requests are refused.'),
  TOKEN_REQUIRED: spec(401, 'auth', 'This server needs its access token: send Authorization: Bearer <token>.'),

  // Event channel.
  SSE_CAPACITY: spec(503, 'upstream', 'Too many event listeners are connected.'),

  // A full disk (ours: the spec names no code for it). Reads go on; writes wait for space.
  STORAGE_FULL: spec(507, 'internal', "The disk holding the server's files is full."),
} as const satisfies Record<string, CodeSpec>;

export type SharedCode = keyof typeof SHARED_CODES;

export interface ErrorBody<C extends string = string> {
  error: { code: C; message: string; details?: Record<string, unknown> };
}

export interface ServiceErrorOptions {
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After on a rate limit. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type. Throw it anywhere; the servers turn it into the error shape. Its status comes from the
 * table of the class that builds it: this class knows the shared codes, a server's subclass (studio/errors.ts,
 * chat/errors.ts, manager/errors.ts) its whole table. `ServiceError<string>` is any server's error.
 */
export class ServiceError<C extends string = SharedCode> extends Error {
  /** The codes this class builds errors for; a server's subclass declares its table. */
  static readonly codes: CodeTable = SHARED_CODES;

  readonly code: C;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After on a rate limit. */
  readonly headers?: Record<string, string>;

  constructor(code: NoInfer<C>, message?: string, options: ServiceErrorOptions = {}) {
    const codeSpec = (new.target as typeof ServiceError).codes[code];
    if (!codeSpec) throw new TypeError(`Error code ${code} is not in the table of ${new.target.name}.`);
    // The last line of defence: whatever an error says goes to an answer, an event, a job row or a log,
    // so no credential the studio holds survives in it, however it got there.
    super(maskCredentials(message ?? codeSpec.message), { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = codeSpec.status;
    this.details = maskCredentialsIn(options.details);
    this.headers = options.headers;
  }

  /** This error with `known` credential values (and credential-shaped text) masked in its message and details. */
  withSecretsMasked(known: readonly (string | undefined)[]): this {
    const Class = this.constructor as new (code: C, message?: string, options?: ServiceErrorOptions) => this;
    return new Class(this.code, maskSecrets(this.message, known), {
      details: maskSecretsIn(this.details, known),
      headers: this.headers,
      cause: this.cause,
    });
  }

  toBody(): ErrorBody<C> {
    const error: ErrorBody<C>['error'] = { code: this.code, message: this.message };
    if (this.details && Object.keys(this.details).length > 0) error.details = this.details;
    return { error };
  }
}

/** A server's error class: what `parseWith` and the like take to build an error with one of that server's codes. */
export type ServiceErrorClass<C extends string> = new (code: C, message?: string, options?: ServiceErrorOptions) => ServiceError<string>;

/** Whether `value` is a code of `table`. */
export const isCodeOf = <T extends CodeTable>(table: T, value: unknown): value is keyof T & string =>
  typeof value === 'string' && Object.hasOwn(table, value);

/** The exit codes of the command-line programs, documented in docs/CLI.md. */
export const EXIT_CODES: Record<ExitKind | 'ok', number> = {
  ok: 0,
  internal: 1,
  usage: 2,
  unreachable: 3,
  auth: 4,
  bad_request: 5,
  upstream: 6,
  timeout: 7,
};

/** The exit code for an error code of `table` (internal for a code it does not know). */
export const exitCodeOf = (table: CodeTable, code: string | undefined): number =>
  isCodeOf(table, code) ? EXIT_CODES[table[code].exit] : EXIT_CODES.internal;
