import { REFERENCE_TO_VIDEO_MAX_SECONDS, REFERENCE_TO_VIDEO_REFERENCES, VIDEO_DURATION_SECONDS } from '../lanes/alpha/controls.js';
import { BETA_ASPECT_RATIOS, BETA_RESOLUTION_TIERS } from '../lanes/beta-api/controls.js';
import { CLIGEN_OUTPUT } from '../lanes/cligen/index.js';
import { API_LIMITS } from '../api/index.js';
import { LANES } from './registry.js';

// The limits of the studio: the spec's Limits table as one view, derived from
// the lane modules that declare them, plus the limits the spec leaves open
// (marked "ours").
export const LIMITS = {
  /** alpha, alpha-api: references + node parent image + agent current image. */
  alphaInputImages: LANES.alpha.maxInputImages,
  cligenReferences: LANES.cligen.maxInputImages,
  gammaReferences: LANES.gamma.maxInputImages,
  deltaReferences: LANES.delta.maxInputImages,
  epsilonReferences: LANES.epsilon.maxInputImages,
  cligenOutput: CLIGEN_OUTPUT,
  betaGenerationTimeoutSeconds: LANES['beta-api'].timeoutMs / 1000,
  cligenProcessTimeoutSeconds: LANES.cligen.timeoutMs / 1000,
  videoDurationSeconds: VIDEO_DURATION_SECONDS,
  referenceToVideoReferences: REFERENCE_TO_VIDEO_REFERENCES,
  referenceToVideoMaxSeconds: REFERENCE_TO_VIDEO_MAX_SECONDS,
  betaAspectRatios: BETA_ASPECT_RATIOS.length,
  betaResolutionTiers: BETA_RESOLUTION_TIERS.length,
  // Ours (the spec leaves these open):
  ...API_LIMITS,
  /** Largest reference image file (decoded from base64). */
  referenceMaxBytes: 20 * 1024 * 1024,
  /** Most pixels of a reference image (checked from its header before it is decoded). */
  referenceMaxPixels: 40_000_000,
  /** Largest request body (base64 references inflate by 4/3). */
  requestBodyMaxBytes: 100 * 1024 * 1024,
  historyRetentionDaysDefault: 7,
  /** Hours a finished job stays answerable at GET /api/jobs/:requestId. */
  jobRetentionHoursDefault: 24,
} as const;
