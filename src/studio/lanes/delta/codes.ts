import { spec } from '../../../common/error-spec.js';

// The `delta` lane's codes (ours, where the spec leaves the code open).
// Plain data: studio/errors.ts merges it into the one code table.

export const DELTA_CODES = {
  INVALID_DELTA_IMAGE_MODEL: spec(400, 'bad_request', 'delta models are image-01 and image-01-live.'),
  DELTA_REF_TOO_MANY: spec(400, 'bad_request', 'delta accepts at most one reference image.'),
  DELTA_INSUFFICIENT_BALANCE: spec(402, 'auth', 'The delta account balance is insufficient; top it up (retrying will not help).'),
  DELTA_INVALID_PARAMETERS: spec(400, 'bad_request', 'delta refused the request parameters.'),
  DELTA_ACCOUNT_VERIFICATION_REQUIRED: spec(403, 'auth', 'The delta account needs real-name verification before it can generate.'),
  DELTA_NO_IMAGE: spec(502, 'upstream', 'The delta answer held no image.'),
} as const;
