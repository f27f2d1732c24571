import { ServiceError } from '../../errors.js';
import { UpstreamError } from '../../upstream/index.js';
import { laneError } from '../lane-error.js';

// The gamma vendor's failures in our codes, by the step that met them: an
// upload, the submit, a poll, the output download. The HTTP status decides
// (the vendor's error bodies are not documented); our time budget running out
// anywhere is GENERATION_TIMEOUT.

export type GammaStep = 'upload' | 'submit' | 'poll' | 'download';

const timeout = (error: UpstreamError) =>
  laneError(
    error,
    'GENERATION_TIMEOUT',
    `gamma did not finish within ${Math.round((error.timeoutMs ?? 0) / 1000)} s (SVC_GAMMA_TIMEOUT_MS).`,
    true,
  );

/** Maps a failure of one step; anything that is not an UpstreamError passes unchanged. */
export function gammaError(step: GammaStep, error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.failure === 'timeout') return timeout(error);
  if (step === 'download')
    return laneError(error, 'GAMMA_OUTPUT_DOWNLOAD_FAILED', `The gamma output could not be downloaded: ${error.message}`, error.retryable);
  if (error.failure !== 'http') return error;
  const status = error.status ?? 0;
  const said = error.vendorMessage ? `: ${error.vendorMessage}` : '.';
  if (status === 401 || status === 403)
    return laneError(error, 'AUTH_API_KEY_INVALID', `gamma refused the key (${status})${said} Check GAMMA_API_KEY.`, false);
  if (status === 429) return laneError(error, 'RATE_LIMITED', `gamma rate limit reached (429)${said}`, true);
  if (step === 'upload')
    return laneError(error, 'GAMMA_UPLOAD_FAILED', `gamma refused a reference upload (${status})${said}`, status >= 500);
  return laneError(
    error,
    'UPSTREAM_FAILED',
    `gamma ${step === 'submit' ? 'refused the generation' : 'failed to report the prediction'} (${status})${said}`,
    status >= 500,
  );
}

/** The budget ran out between two polls. */
export const budgetSpent = (timeoutMs: number, predictionId: string | null): ServiceError =>
  new ServiceError('GENERATION_TIMEOUT', `gamma did not finish within ${Math.round(timeoutMs / 1000)} s (SVC_GAMMA_TIMEOUT_MS).`, {
    details: { lane: 'gamma', timeoutMs, predictionId, retryable: true },
  });
