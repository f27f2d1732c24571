import {
  exitCodeOf,
  isCodeOf,
  mergeCodeTables,
  ServiceError as AnyServiceError,
  SHARED_CODES,
  spec,
  type CodeSpec,
} from '../common/errors.js';
import { CODE_TABLES } from './catalog/codes.js';

// The studio's one table of error codes: the shared codes (common/errors.ts), the studio's own below, and
// every lane's (and video's, Agent Mode's, the prompt builder's), each declared in its folder and listed in
// catalog/codes.ts. `svc` derives its exit codes from it (exitCodeFor).

const STUDIO_CODES = {
  // Jobs and settings (ours).
  INVALID_SETTING: spec(400, 'bad_request', 'The setting or its value is not valid.'),
  REQUEST_ID_IN_USE: spec(
    409,
    'bad_request',
    'A job with this requestId exists with another request (the same request again answers that job).',
  ),
  JOB_NOT_RETRYABLE: spec(409, 'bad_request', 'Only a failed, cancelled or interrupted job can be retried.'),
  JOB_INPUTS_MISSING: spec(410, 'bad_request', 'An input image of the job is no longer stored.'),
  REQUEST_ID_REQUIRED: spec(400, 'bad_request', 'async: true needs a requestId.'),
  JOB_NOT_FOUND: spec(404, 'bad_request', 'No job with that id.'),
  RETENTION_EXPIRED: spec(410, 'bad_request', 'The asset was deleted too long ago to restore.'),
  RANGE_NOT_SATISFIABLE: spec(416, 'bad_request', 'The byte range asked for holds no byte of the file.'),
  JOB_CANCELLED: spec(499, 'upstream', 'The job was cancelled.'),
  OPENER_UNAVAILABLE: spec(501, 'internal', 'This machine has no program to open a folder.'),
  JOB_INTERRUPTED: spec(503, 'upstream', 'The studio stopped while the job ran; run it again.'),

  // Vector tracing (ours: the spec names the route, not its codes).
  TRACE_SOURCE_NOT_FOUND: spec(404, 'bad_request', 'The image to trace is not in history.'),
  TRACE_SOURCE_UNSUPPORTED: spec(415, 'bad_request', 'Only PNG, JPEG and WebP images can be traced.'),
  TRACE_PRESET_UNKNOWN: spec(400, 'bad_request', 'Unknown tracing preset.'),
  TRACE_PARAMETER_INVALID: spec(400, 'bad_request', 'A tracing parameter is unknown or out of range.'),
  TRACE_SOURCE_TOO_LARGE: spec(413, 'bad_request', 'The image to trace has more pixels than the studio decodes.'),
  TRACE_TOO_COMPLEX: spec(
    422,
    'bad_request',
    'The image has too much fine detail to trace with these parameters (too many paths, bytes or memory).',
  ),
  TRACE_TIMEOUT: spec(504, 'timeout', 'Tracing took longer than its time budget.'),
  TRACE_FAILED: spec(500, 'internal', 'The tracer failed on this image.'),
  SVG_UNSAFE: spec(500, 'internal', 'The SVG holds something the studio does not save (script, external references, unknown markup).'),

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
  VIDEO_PROVIDER_UNSUPPORTED: spec(400, 'bad_request', 'Video needs a lane with video models.'),
  ENV_KEY_IMMUTABLE: spec(409, 'bad_request', 'This key comes from the environment and cannot be changed here.'),

  // Account switching (ours: the spec names the routes and states, not these codes).
  AUTH_SWITCH_NOT_FOUND: spec(404, 'bad_request', 'No such account switch: it ended more than two minutes ago, or never began.'),
  AUTH_SWITCH_DENIED: spec(403, 'auth', 'The sign-in was declined.'),
  AUTH_SWITCH_TOO_MANY: spec(
    429,
    'bad_request',
    'Too many sign-ins of this account started in the last minute; try again after Retry-After.',
  ),
} as const satisfies Record<string, CodeSpec>;

export const ERROR_CODES = mergeCodeTables(SHARED_CODES, STUDIO_CODES, ...CODE_TABLES);

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode => isCodeOf(ERROR_CODES, value);

/** The CLI's exit code for a code the studio answered (internal for a code it does not know). */
export const exitCodeFor = (code: string | undefined): number => exitCodeOf(ERROR_CODES, code);

/**
 * The studio's ServiceError: the common one with the studio's codes. `instanceof` holds for any ServiceError
 * whose code is in the studio's table, so one thrown by common code (validation, the HTTP hooks) is one too.
 */
export class ServiceError extends AnyServiceError<ErrorCode> {
  static override readonly codes = ERROR_CODES;

  static override [Symbol.hasInstance](value: unknown): value is ServiceError {
    return value instanceof AnyServiceError && isErrorCode(value.code);
  }
}
