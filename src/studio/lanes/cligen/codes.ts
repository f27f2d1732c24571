import { spec } from '../../../common/error-spec.js';

// The `cligen` lane's codes: the spec's, and the contract's name for its missing mask edit.
// Plain data: studio/errors.ts merges it into the one code table.

export const CLIGEN_CODES = {
  CLIGEN_GENERATION_FAILED: spec(502, 'upstream', 'Local CLI image generation failed.'),
  CLIGEN_TIMEOUT: spec(504, 'timeout', 'The generation CLI exceeded its time limit.'),
  CLIGEN_QUOTA_EXHAUSTED: spec(429, 'upstream', 'The generation CLI quota is exhausted.'),
  CLIGEN_VIDEO_UNSUPPORTED: spec(400, 'bad_request', 'The cligen lane does not generate video.'),
  CLIGEN_REF_TOO_MANY: spec(400, 'bad_request', 'cligen accepts at most three references.'),
  CLIGEN_MASK_UNSUPPORTED: spec(400, 'bad_request', 'cligen edits cannot use a mask.'),
} as const;
