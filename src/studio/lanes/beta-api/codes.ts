import { spec } from '../../../common/error-spec.js';

// The `beta-api` lane's codes (the spec's).
// Plain data: studio/errors.ts merges it into the one code table.

export const BETA_API_CODES = {
  BETA_API_KEY_MISSING: spec(401, 'auth', 'beta-api needs an API key or service-account credentials.'),
  INVALID_BETA_API_IMAGE_MODEL: spec(400, 'bad_request', 'beta-api models are nano-fruit-2 and nano-fruit-pro.'),
  BETA_API_RATE_LIMITED: spec(429, 'upstream', 'beta-api rate limit reached.'),
  BETA_API_SAFETY_BLOCKED: spec(422, 'upstream', 'beta-api blocked the generation with its safety filter.'),
  BETA_API_NO_IMAGE: spec(502, 'upstream', 'The beta-api response held no image.'),
} as const;
