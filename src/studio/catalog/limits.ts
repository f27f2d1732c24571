// The limits of the studio, declared once. The spec's Limits table plus the
// ones it leaves open (marked "ours").
export const LIMITS = {
  /** alpha, alpha-api: references + node parent image + agent current image. */
  alphaInputImages: 3,
  cligenReferences: 3,
  gammaReferences: 10,
  deltaReferences: 1,
  epsilonReferences: 0,
  cligenOutput: { width: 1024, height: 1024, format: 'jpeg' },
  betaGenerationTimeoutSeconds: 120,
  cligenProcessTimeoutSeconds: 360,
  videoDurationSeconds: { min: 1, max: 15 },
  referenceToVideoReferences: { min: 2, max: 14 },
  referenceToVideoMaxSeconds: { 'alpha-video-1.5': 15, 'alpha-video': 10 },
  betaAspectRatios: 10,
  betaResolutionTiers: 4,
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
