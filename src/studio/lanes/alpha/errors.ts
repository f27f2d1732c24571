import { ServiceError } from '../../errors.js';
import { UpstreamError, type VendorError } from '../../upstream/index.js';
import { laneError } from '../lane-error.js';
import { ALPHA_PHASES, type AlphaStep } from './phases.js';

// The alpha vendor's failures in our codes. Its two error bodies (contract §7)
// are read by `parseAlphaError`; a 429 is the rate limit unless its message
// says the credits or the monthly spend cap are used up (not retryable: a
// distinct code). A spent phase budget answers that phase's code.

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** `error.message` when `error` is an object, else `code` + `error` (the gRPC-status shape). */
export function parseAlphaError(body: string): VendorError {
  let root: Record<string, unknown> | undefined;
  try {
    root = asRecord(JSON.parse(body));
  } catch {
    return { message: body.trim().slice(0, 200) || undefined };
  }
  const error = asRecord(root?.error);
  if (error) return { message: text(error.message), code: text(error.code), type: text(error.type) };
  const status = text(root?.code);
  const message = text(root?.error);
  return { message: message ?? status, code: status };
}

const CREDITS = /used all available credits|monthly spending limit|spending limit|out of credits/i;
const BAD_KEY = /api key/i;

/** What the step was doing, in words. */
const STEP_WORDS: Readonly<Record<AlphaStep | 'download', string>> = {
  search: 'the web search',
  planner: 'the planner',
  image: 'the image API',
  download: 'the image download',
};

/** Maps a failure of one step; anything that is not an UpstreamError passes unchanged. */
export function alphaError(
  step: AlphaStep | 'download',
  error: unknown,
  options: { lane: string; credential: 'session' | 'key'; budgetMs: number },
): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const phase = ALPHA_PHASES[step === 'download' ? 'image' : step];
  const said = error.vendorMessage ? `: ${error.vendorMessage}` : '.';
  const withStep = (mapped: ServiceError, extra: Record<string, unknown> = {}) =>
    new ServiceError(mapped.code, mapped.message, {
      details: { ...mapped.details, step, ...extra },
      headers: mapped.headers,
      cause: error,
    });
  if (error.failure === 'timeout') {
    // The phase's budget, not what was left of it for the last call.
    return withStep(
      laneError(
        error,
        phase.timeoutCode,
        `${STEP_WORDS[step]} of ${options.lane} did not finish within ${Math.round(options.budgetMs / 1000)} s (${phase.env}).`,
        true,
      ),
      { timeoutMs: options.budgetMs },
    );
  }
  if (step === 'download')
    return withStep(
      laneError(
        error,
        'ALPHA_OUTPUT_DOWNLOAD_FAILED',
        `The ${options.lane} image could not be downloaded: ${error.message}`,
        error.retryable,
      ),
    );
  if (error.failure !== 'http') return withStep(error.toServiceError());
  const status = error.status ?? 0;
  const remedy = options.credential === 'session' ? 'Run `svc alpha login` again.' : 'Check ALPHA_API_KEY.';
  if (status === 401 || status === 403 || (status === 400 && BAD_KEY.test(error.vendorMessage ?? ''))) {
    return withStep(
      laneError(
        error,
        'ALPHA_AUTH_FAILED',
        `${options.lane} refused the ${options.credential === 'session' ? 'session' : 'key'} (${status})${said} ${remedy}`,
        false,
      ),
    );
  }
  if (status === 429 && CREDITS.test(error.vendorMessage ?? '')) {
    return withStep(
      laneError(
        error,
        'ALPHA_SPEND_CAP_REACHED',
        `The ${options.lane} account has used its credits or reached its monthly spending limit${said} Retrying will not help until the limit is raised.`,
        false,
      ),
    );
  }
  if (status === 429) return withStep(laneError(error, 'ALPHA_RATE_LIMITED', `${options.lane} rate limit reached (429)${said}`, true));
  if (status === 404) {
    const code = step === 'image' ? 'INVALID_ALPHA_IMAGE_MODEL' : 'INVALID_ALPHA_PLANNER_MODEL';
    return withStep(
      laneError(error, code, `${options.lane} does not offer the ${step === 'image' ? 'image' : 'planner'} model (404)${said}`, false),
    );
  }
  return withStep(
    laneError(
      error,
      'UPSTREAM_FAILED',
      `${STEP_WORDS[step]} of ${options.lane} ${status >= 500 ? 'failed' : 'refused the request'} (${status})${said}`,
      error.retryable,
    ),
  );
}
