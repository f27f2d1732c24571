// The beta image API's controls (spec: Beta lane details).

export const BETA_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export const BETA_RESOLUTION_TIERS = ['512px', '1K', '2K', '4K'] as const;
export type BetaResolutionTier = (typeof BETA_RESOLUTION_TIERS)[number];

/** Estimated USD per image by model and tier (output tokens × official rate). */
export const BETA_COST_TABLE: Record<'nano-fruit-2' | 'nano-fruit-pro', { ratePerMillionTokensUsd: number; perImageUsd: Record<BetaResolutionTier, number> }> = {
  'nano-fruit-2': { ratePerMillionTokensUsd: 60, perImageUsd: { '512px': 0.045, '1K': 0.067, '2K': 0.101, '4K': 0.151 } },
  'nano-fruit-pro': { ratePerMillionTokensUsd: 120, perImageUsd: { '512px': 0.134, '1K': 0.134, '2K': 0.134, '4K': 0.24 } },
};
