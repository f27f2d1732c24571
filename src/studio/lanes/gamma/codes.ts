import { spec } from '../../../common/error-spec.js';

// The `gamma` lane's codes (ours, where the spec leaves the code open).
// Plain data: studio/errors.ts merges it into the one code table.

export const GAMMA_CODES = {
  GAMMA_REF_TOO_MANY: spec(400, 'bad_request', 'gamma accepts at most ten reference images.'),
  GAMMA_UPLOAD_FAILED: spec(502, 'upstream', 'A reference upload to gamma failed.'),
  GAMMA_UPLOAD_NO_URL: spec(502, 'upstream', 'gamma took a reference upload but gave no URL for it.'),
  GAMMA_NO_PREDICTION_ID: spec(502, 'upstream', 'gamma accepted the generation without a prediction id.'),
  GAMMA_GENERATION_FAILED: spec(502, 'upstream', 'gamma reported the generation as failed.'),
  GAMMA_OUTPUT_DOWNLOAD_FAILED: spec(502, 'upstream', 'The gamma output image could not be downloaded safely.'),
} as const;
