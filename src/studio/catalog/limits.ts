import { BETA_ASPECT_RATIOS, BETA_RESOLUTION_TIERS, VIDEO_DURATION_SECONDS } from './controls.js';
import { LANES } from './lanes.js';

// The limits of the studio: the spec's Limits table as one view (its lane
// limits are declared in the lane table, its counts by the value lists), plus
// the limits the spec leaves open (marked "ours"), declared here.
export const LIMITS = {
  /** alpha, alpha-api: references + node parent image + agent current image. */
  alphaInputImages: LANES.alpha.maxReferences,
  cligenReferences: LANES.cligen.maxReferences,
  gammaReferences: LANES.gamma.maxReferences,
  deltaReferences: LANES.delta.maxReferences,
  epsilonReferences: LANES.epsilon.maxReferences,
  cligenOutput: { width: 1024, height: 1024, format: 'jpeg' },
  betaGenerationTimeoutSeconds: LANES['beta-api'].timeoutMs / 1000,
  cligenProcessTimeoutSeconds: LANES.cligen.timeoutMs / 1000,
  videoDurationSeconds: VIDEO_DURATION_SECONDS,
  referenceToVideoReferences: { min: 2, max: 14 },
  referenceToVideoMaxSeconds: { 'alpha-video-1.5': 15, 'alpha-video': 10 },
  betaAspectRatios: BETA_ASPECT_RATIOS.length,
  betaResolutionTiers: BETA_RESOLUTION_TIERS.length,
  // Ours (the spec leaves these open):
  /** Largest decoded reference image. */
  referenceMaxBytes: 20 * 1024 * 1024,
  /** Largest request body (base64 references inflate by 4/3). */
  requestBodyMaxBytes: 100 * 1024 * 1024,
  promptMaxChars: 32_000,
  multimodeMaxOutputs: 8,
  historyPageMax: 200,
  historyRetentionDaysDefault: 7,
} as const;
