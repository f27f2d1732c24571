// The beta image API's controls (spec: Beta lane details), declared once:
// the ten aspect ratios, the four resolution tiers, the exact pixel size of
// every selection, the vendor enum each tier is sent as, and the cost table.

export const BETA_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export type BetaAspectRatio = (typeof BETA_ASPECT_RATIOS)[number];
export const BETA_RESOLUTION_TIERS = ['512px', '1K', '2K', '4K'] as const;
export type BetaResolutionTier = (typeof BETA_RESOLUTION_TIERS)[number];
export type BetaModelId = 'nano-fruit-2' | 'nano-fruit-pro';

/** Without options: square, at the vendor's default tier. */
export const BETA_DEFAULT_SELECTION = { aspectRatio: '1:1', resolution: '1K' } as const satisfies {
  aspectRatio: BetaAspectRatio;
  resolution: BetaResolutionTier;
};

/**
 * Exact pixels (width × height) of each selection: the vendor's documented
 * sizes at 1K, 2K and 4K; 512px is half of 1K. Every side is a multiple of 8.
 */
export const BETA_PIXEL_SIZES: Readonly<Record<BetaResolutionTier, Readonly<Record<BetaAspectRatio, readonly [number, number]>>>> = {
  '512px': {
    '1:1': [512, 512],
    '2:3': [424, 632],
    '3:2': [632, 424],
    '3:4': [448, 600],
    '4:3': [600, 448],
    '4:5': [464, 576],
    '5:4': [576, 464],
    '9:16': [384, 688],
    '16:9': [688, 384],
    '21:9': [792, 336],
  },
  '1K': {
    '1:1': [1024, 1024],
    '2:3': [848, 1264],
    '3:2': [1264, 848],
    '3:4': [896, 1200],
    '4:3': [1200, 896],
    '4:5': [928, 1152],
    '5:4': [1152, 928],
    '9:16': [768, 1376],
    '16:9': [1376, 768],
    '21:9': [1584, 672],
  },
  '2K': {
    '1:1': [2048, 2048],
    '2:3': [1696, 2528],
    '3:2': [2528, 1696],
    '3:4': [1792, 2400],
    '4:3': [2400, 1792],
    '4:5': [1856, 2304],
    '5:4': [2304, 1856],
    '9:16': [1536, 2752],
    '16:9': [2752, 1536],
    '21:9': [3168, 1344],
  },
  '4K': {
    '1:1': [4096, 4096],
    '2:3': [3392, 5056],
    '3:2': [5056, 3392],
    '3:4': [3584, 4800],
    '4:3': [4800, 3584],
    '4:5': [3712, 4608],
    '5:4': [4608, 3712],
    '9:16': [3072, 5504],
    '16:9': [5504, 3072],
    '21:9': [6336, 2688],
  },
};

/** `WxH` of a selection. */
export const betaPixelSize = (aspectRatio: BetaAspectRatio, resolution: BetaResolutionTier): string =>
  BETA_PIXEL_SIZES[resolution][aspectRatio].join('x');

/** The vendor's `imageSize` enum value of each tier (it spells 512px as `512`). */
export const BETA_IMAGE_SIZE_ENUM: Readonly<Record<BetaResolutionTier, string>> = { '512px': '512', '1K': '1K', '2K': '2K', '4K': '4K' };

/**
 * The tier each model renders a selection at: the pro model has no 512px tier
 * upstream, so it renders 512px at 1K (the cost table prices the two alike).
 */
export const BETA_RENDERED_TIER: Readonly<Record<BetaModelId, Readonly<Record<BetaResolutionTier, BetaResolutionTier>>>> = {
  'nano-fruit-2': { '512px': '512px', '1K': '1K', '2K': '2K', '4K': '4K' },
  'nano-fruit-pro': { '512px': '1K', '1K': '1K', '2K': '2K', '4K': '4K' },
};

/** The `cloud` mode's endpoint takes neither control: its output is 1K, 1:1 (spec: Beta lane details 4). */
export const BETA_CLOUD_SELECTION = { aspectRatio: '1:1', resolution: '1K' } as const satisfies {
  aspectRatio: BetaAspectRatio;
  resolution: BetaResolutionTier;
};

/** Estimated USD per image by model and tier (output tokens × official rate). */
export const BETA_COST_TABLE: Record<BetaModelId, { ratePerMillionTokensUsd: number; perImageUsd: Record<BetaResolutionTier, number> }> = {
  'nano-fruit-2': { ratePerMillionTokensUsd: 60, perImageUsd: { '512px': 0.045, '1K': 0.067, '2K': 0.101, '4K': 0.151 } },
  'nano-fruit-pro': { ratePerMillionTokensUsd: 120, perImageUsd: { '512px': 0.134, '1K': 0.134, '2K': 0.134, '4K': 0.24 } },
};
