import { spec } from '../../../common/error-spec.js';

// The `epsilon` lane's codes: the spec's (references, edits, masks), and ours for its
// subscription and its ZIP answers.
// Plain data: studio/errors.ts merges it into the one code table.

export const EPSILON_CODES = {
  EPSILON_REF_UNSUPPORTED: spec(400, 'bad_request', 'epsilon does not take reference images.'),
  EPSILON_EDIT_UNSUPPORTED: spec(400, 'bad_request', 'epsilon does not edit images.'),
  EPSILON_MASK_UNSUPPORTED: spec(400, 'bad_request', 'epsilon does not take masks.'),
  EPSILON_SUBSCRIPTION_REQUIRED: spec(402, 'auth', 'epsilon needs an active subscription for this generation.'),
  EPSILON_USAGE_EXHAUSTED: spec(402, 'auth', 'The epsilon subscription has no generations left (its charge meter and credits are empty).'),
  EPSILON_BAD_REQUEST: spec(400, 'bad_request', 'epsilon refused the request as invalid.'),
  EPSILON_REQUEST_CONFLICT: spec(409, 'upstream', 'epsilon refused the request as conflicting (another generation is running).'),
  EPSILON_EMPTY_IMAGE: spec(502, 'upstream', 'epsilon answered with an empty body.'),
  EPSILON_RESPONSE_NOT_ZIP: spec(502, 'upstream', 'epsilon answered with something other than a ZIP archive.'),
  EPSILON_ZIP_INVALID: spec(502, 'upstream', 'The epsilon ZIP archive is damaged or truncated.'),
  EPSILON_ZIP_UNSUPPORTED: spec(502, 'upstream', 'The epsilon ZIP archive uses a feature the studio does not read.'),
  EPSILON_ZIP_TOO_LARGE: spec(502, 'upstream', 'The epsilon ZIP entry is larger than the studio accepts.'),
  EPSILON_IMAGE_INVALID: spec(502, 'upstream', 'The epsilon ZIP entry is not a PNG image.'),
} as const;
