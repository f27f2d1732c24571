import { ServiceError, type ErrorCode } from '../errors.js';
import type { UpstreamError } from '../upstream/index.js';

// An upstream failure in a lane's own code, saying whether trying the same
// request again can help (`details.retryable`): a rate limit or a server error
// may pass, a refused key or an empty balance will not. Used by the lanes whose
// vendors tell the two apart (gamma, delta, epsilon).

export function laneError(error: UpstreamError, code: ErrorCode, message: string, retryable: boolean): ServiceError {
  const mapped = error.as(code, message);
  return new ServiceError(code, mapped.message, { details: { ...mapped.details, retryable }, headers: mapped.headers, cause: error });
}
