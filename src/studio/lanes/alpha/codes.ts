import { spec } from '../../../common/error-spec.js';

// The `alpha` and `alpha-api` lanes' codes: the spec's, and ours where the spec leaves the code open
// (the spend cap, the planner model, the download of a linked result).
// Plain data: studio/errors.ts merges it into the one code table.

export const ALPHA_CODES = {
  ALPHA_REF_TOO_MANY: spec(400, 'bad_request', 'Alpha accepts at most three input images in total.'),
  ALPHA_MASK_UNSUPPORTED: spec(400, 'bad_request', 'Alpha edits cannot use a mask.'),
  INVALID_ALPHA_IMAGE_MODEL: spec(400, 'bad_request', 'Unsupported alpha image model.'),
  ALPHA_RATE_LIMITED: spec(429, 'upstream', 'Alpha rate limit reached.'),
  ALPHA_AUTH_FAILED: spec(401, 'auth', 'The alpha OAuth session or key was refused.'),
  ALPHA_SEARCH_TIMEOUT: spec(504, 'timeout', 'The alpha web search exceeded its time budget.'),
  ALPHA_PLANNER_TIMEOUT: spec(504, 'timeout', 'The alpha planner exceeded its time budget.'),
  ALPHA_IMAGE_TIMEOUT: spec(504, 'timeout', 'The alpha image step exceeded its time budget.'),
  ALPHA_SPEND_CAP_REACHED: spec(
    402,
    'auth',
    'The alpha account used its credits or reached its monthly spending limit (retrying will not help).',
  ),
  INVALID_ALPHA_PLANNER_MODEL: spec(400, 'bad_request', 'Unknown alpha planner model (alpha-4.3, alpha-4.5, alpha-4.6).'),
  ALPHA_OUTPUT_DOWNLOAD_FAILED: spec(502, 'upstream', 'The alpha image could not be downloaded safely.'),
} as const;
