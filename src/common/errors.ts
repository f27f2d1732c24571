import { LANE_CODE_TABLES } from '../studio/catalog/codes.js';
import { mergeCodeTables, spec, type CodeSpec, type ExitKind } from './error-spec.js';
import { maskCredentials, maskCredentialsIn, maskSecrets, maskSecretsIn } from './secrets.js';

// The one table of error codes. Every error answer of every server in this
// project is `{ "error": { "code", "message", "details"? } }` with the status
// declared here; the CLI derives its exit code from the same table. The codes
// below are everyone's; a lane's own codes are declared in its folder
// (`lanes/<lane>/codes.ts`) and merged in, as the registry merges the lanes.

export type { ExitKind } from './error-spec.js';

const SHARED_CODES = {
  // Request shape and routing (ours).
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
  INVALID_SETTING: spec(400, 'bad_request', 'The setting or its value is not valid.'),
  REQUEST_ID_IN_USE: spec(409, 'bad_request', 'A job with this requestId exists with another request (the same request again answers that job).'),
  JOB_NOT_RETRYABLE: spec(409, 'bad_request', 'Only a failed, cancelled or interrupted job can be retried.'),
  JOB_INPUTS_MISSING: spec(410, 'bad_request', "An input image of the job is no longer stored."),
  REQUEST_ID_REQUIRED: spec(400, 'bad_request', 'async: true needs a requestId.'),
  JOB_NOT_FOUND: spec(404, 'bad_request', 'No job with that id.'),
  RETENTION_EXPIRED: spec(410, 'bad_request', 'The asset was deleted too long ago to restore.'),
  INTERNAL_ERROR: spec(500, 'internal', 'Internal server error.'),
  SERVICE_UNAVAILABLE: spec(503, 'upstream', 'The service is unavailable.'),
  JOB_CANCELLED: spec(499, 'upstream', 'The job was cancelled.'),
  OPENER_UNAVAILABLE: spec(501, 'internal', 'This machine has no program to open a folder.'),
  JOB_INTERRUPTED: spec(503, 'upstream', 'The studio stopped while the job ran; run it again.'),

  // Local API protection (ours).
  FORBIDDEN_HOST: spec(403, 'auth', 'The Host header is not a loopback name or a configured origin.'),
  FORBIDDEN_ORIGIN: spec(403, 'auth', 'Cross-origin state-changing requests are refused.'),
  TOKEN_REQUIRED: spec(401, 'auth', 'This server needs its access token: send Authorization: Bearer <token>.'),

  // Vector tracing (ours: the spec names the route, not its codes).
  TRACE_SOURCE_NOT_FOUND: spec(404, 'bad_request', 'The image to trace is not in history.'),
  TRACE_SOURCE_UNSUPPORTED: spec(415, 'bad_request', 'Only PNG, JPEG and WebP images can be traced.'),
  TRACE_PRESET_UNKNOWN: spec(400, 'bad_request', 'Unknown tracing preset.'),
  TRACE_PARAMETER_INVALID: spec(400, 'bad_request', 'A tracing parameter is unknown or out of range.'),
  TRACE_SOURCE_TOO_LARGE: spec(413, 'bad_request', 'The image to trace has more pixels than the studio decodes.'),
  TRACE_TOO_COMPLEX: spec(422, 'bad_request', 'The image has too much fine detail to trace with these parameters (too many paths, bytes or memory).'),
  TRACE_TIMEOUT: spec(504, 'timeout', 'Tracing took longer than its time budget.'),
  TRACE_FAILED: spec(500, 'internal', 'The tracer failed on this image.'),
  SVG_UNSAFE: spec(500, 'internal', 'The SVG holds something the studio does not save (script, external references, unknown markup).'),

  // Event channel.
  SSE_CAPACITY: spec(503, 'upstream', 'Too many event listeners are connected.'),

  // Agent chat server: goals and PABCD orchestration (ours; the spec names none).
  GOAL_ACTIVE: spec(409, 'bad_request', 'A goal is already active; replace it explicitly.'),
  GOAL_NOT_FOUND: spec(404, 'bad_request', 'There is no current goal.'),
  GOAL_STATE_CONFLICT: spec(409, 'bad_request', 'The goal is not in a state that allows this.'),
  GOAL_EVIDENCE_REQUIRED: spec(409, 'bad_request', 'The latest checkpoint carries no evidence.'),
  ORC_TRANSITION_INVALID: spec(409, 'bad_request', 'The orchestration cannot move to that phase from where it is.'),
  ORC_PHASE_RUNNING: spec(409, 'bad_request', 'The current phase is still running.'),
  SESSION_BUSY: spec(409, 'bad_request', 'The session has a running or waiting answer, or the open goal or orchestration runs in it.'),

  // Chat manager (ours).
  INSTANCE_URL_NOT_ALLOWED: spec(400, 'bad_request', 'A worker URL must be plain http on a loopback address.'),
  INSTANCE_NOT_FOUND: spec(404, 'bad_request', 'No such worker instance.'),
  INSTANCE_EXISTS: spec(409, 'bad_request', 'That worker instance is already followed.'),
  INSTANCE_NOT_MANAGED: spec(409, 'bad_request', 'The manager did not launch this worker, so it cannot start or stop it.'),
  INSTANCE_UNREACHABLE: spec(502, 'unreachable', 'The worker did not answer as an agent chat server.'),

  // References (the spec leaves these codes open; ours).
  REFERENCE_INVALID: spec(400, 'bad_request', 'A reference image is not valid.'),
  REFERENCE_TOO_LARGE: spec(413, 'bad_request', 'A reference image is too large.'),
  REFERENCE_TOO_MANY: spec(400, 'bad_request', 'Too many reference images for this lane.'),
  REFERENCE_TOO_MANY_PIXELS: spec(413, 'bad_request', 'A reference image has more pixels than the studio decodes.'),
  REFERENCE_TYPE_UNSUPPORTED: spec(415, 'bad_request', 'A reference image is not PNG, JPEG or WebP.'),
  REFERENCE_NOT_FOUND: spec(404, 'bad_request', 'A reference names a history file that does not exist.'),
  MASK_UNSUPPORTED: spec(400, 'bad_request', 'This lane cannot edit with a mask.'),
  LANE_UNSUPPORTED: spec(400, 'bad_request', 'This lane does not support that operation.'),
  LANE_NOT_AVAILABLE: spec(503, 'upstream', 'This lane is not available in this build.'),
  NO_LANE_READY: spec(503, 'auth', 'No lane is ready for this request (provider auto).'),

  // Upstream, generic.
  RATE_LIMITED: spec(429, 'upstream', 'The upstream rate limit was reached.'),
  UPSTREAM_FAILED: spec(502, 'upstream', 'The upstream service failed.'),
  UPSTREAM_TIMEOUT: spec(504, 'timeout', 'The upstream service did not answer in time.'),
  UPSTREAM_PROTOCOL_ERROR: spec(502, 'upstream', 'The upstream answered with something its protocol does not allow.'),

  // The spec's codes.
  API_KEY_REQUIRED: spec(401, 'auth', 'This lane needs an API key and none is configured.'),
  INVALID_IMAGE_MODEL: spec(400, 'bad_request', 'Model name unknown or unsupported.'),
  IMAGE_MODEL_UNSUPPORTED: spec(400, 'bad_request', 'The model exists but cannot generate images.'),
  SAFETY_REFUSAL: spec(422, 'upstream', 'The upstream refused the request for safety reasons.'),
  MODERATION_REFUSED: spec(422, 'upstream', 'The upstream moderation refused the request.'),
  AUTH_API_KEY_INVALID: spec(401, 'auth', 'The API key is invalid, revoked, or out of quota.'),
  NETWORK_FAILED: spec(502, 'unreachable', 'Network, proxy, VPN or firewall failure reaching the upstream.'),
  GRAPH_VERSION_CONFLICT: spec(412, 'bad_request', 'The graph was saved against a stale version.'),
  GRAPH_VERSION_REQUIRED: spec(428, 'bad_request', 'Saving a graph needs an If-Match header with its version.'),
  NODE_NOT_FOUND: spec(404, 'bad_request', 'Node metadata not found.'),
  // Graph sessions (ours, where the spec leaves the code open).
  SESSION_NOT_FOUND: spec(404, 'bad_request', 'No such graph session.'),
  GRAPH_INVALID: spec(400, 'bad_request', 'The graph is not valid (ids, edges or cycles).'),
  GRAPH_TOO_LARGE: spec(413, 'bad_request', 'The graph is larger than the studio keeps.'),
  GENERATION_TIMEOUT: spec(504, 'timeout', 'The generation exceeded its time limit.'),
  VIDEO_PROVIDER_UNSUPPORTED: spec(400, 'bad_request', 'Video needs provider alpha or alpha-api.'),
  ENV_KEY_IMMUTABLE: spec(409, 'bad_request', 'This key comes from the environment and cannot be changed here.'),
  // Account switching (ours: the spec names the routes and states, not these codes).
  AUTH_SWITCH_NOT_FOUND: spec(404, 'bad_request', 'No such account switch: it ended more than two minutes ago, or never began.'),
  AUTH_SWITCH_DENIED: spec(403, 'auth', 'The sign-in was declined.'),
  // A full disk (ours: the spec names no code for it). Reads go on; writes wait for space.
  STORAGE_FULL: spec(507, 'internal', 'The disk holding the server\'s files is full.'),
  AUTH_SWITCH_TOO_MANY: spec(429, 'bad_request', 'Too many sign-ins of this account started in the last minute; try again after Retry-After.'),
} as const satisfies Record<string, CodeSpec>;

export const ERROR_CODES = mergeCodeTables(SHARED_CODES, ...LANE_CODE_TABLES);

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** The one error type. Throw it anywhere; the servers turn it into the error shape. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After on a rate limit. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    // The last line of defence: whatever an error says goes to an answer, an event, a job row or a log,
    // so no credential the studio holds survives in it, however it got there.
    super(maskCredentials(message ?? ERROR_CODES[code].message), { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = maskCredentialsIn(options.details);
    this.headers = options.headers;
  }

  /** This error with `known` credential values (and credential-shaped text) masked in its message and details. */
  withSecretsMasked(known: readonly (string | undefined)[]): ServiceError {
    return new ServiceError(this.code, maskSecrets(this.message, known), { details: maskSecretsIn(this.details, known), headers: this.headers, cause: this.cause });
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details && Object.keys(this.details).length > 0) error.details = this.details;
    return { error };
  }
}

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);

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

export const exitCodeFor = (code: string | undefined): number =>
  isErrorCode(code) ? EXIT_CODES[ERROR_CODES[code].exit] : EXIT_CODES.internal;
