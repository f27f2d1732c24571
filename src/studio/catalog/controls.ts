// Valid values of the generation controls, declared once. Validation, the
// capabilities route, the CLI and the UI all read these arrays.

export const QUALITIES = ['low', 'medium', 'high'] as const;
export const MODERATIONS = ['auto', 'low'] as const;
export const REASONING_EFFORTS = ['none', 'low', 'medium', 'high', 'xhigh'] as const;
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;

export type Quality = (typeof QUALITIES)[number];
export type Moderation = (typeof MODERATIONS)[number];
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** Sizes offered by pickers; any `<width>x<height>` within the size rule below is accepted. */
export const COMMON_SIZES = ['1024x1024', '1024x1536', '1536x1024', '2048x2048', '1920x1088', '1088x1920'] as const;

/** The hosted image tool's rule for free sizes (contract: sides divisible by 16, ratio ≤ 3:1, ≤ 3840x2160). */
export const SIZE_RULE = { multipleOf: 16, maxRatio: 3, maxLongSide: 3840, maxShortSide: 2160, minSide: 256 } as const;

export const ALPHA_PLANNER_VERSIONS = ['alpha-4.3', 'alpha-4.5', 'alpha-4.6'] as const;
export const DEFAULT_ALPHA_PLANNER = 'alpha-4.3';
export const ALPHA_RESOLUTIONS = ['1k', '2k'] as const;

export const BETA_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export const BETA_RESOLUTION_TIERS = ['512px', '1K', '2K', '4K'] as const;
export type BetaResolutionTier = (typeof BETA_RESOLUTION_TIERS)[number];

/** Estimated USD per image by model and tier (output tokens × official rate). */
export const BETA_COST_TABLE: Record<'nano-fruit-2' | 'nano-fruit-pro', { ratePerMillionTokensUsd: number; perImageUsd: Record<BetaResolutionTier, number> }> = {
  'nano-fruit-2': { ratePerMillionTokensUsd: 60, perImageUsd: { '512px': 0.045, '1K': 0.067, '2K': 0.101, '4K': 0.151 } },
  'nano-fruit-pro': { ratePerMillionTokensUsd: 120, perImageUsd: { '512px': 0.134, '1K': 0.134, '2K': 0.134, '4K': 0.24 } },
};

export const VIDEO_RESOLUTIONS = ['480p', '720p', '1080p'] as const;
export const VIDEO_DURATION_SECONDS = { min: 1, max: 15 } as const;

/** Parses `<width>x<height>`; undefined when the text is not of that form. */
export function parseSize(size: string): { width: number; height: number } | undefined {
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!match) return undefined;
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** Why a size breaks SIZE_RULE, or undefined when it is fine. */
export function sizeProblem(size: string): string | undefined {
  const parsed = parseSize(size);
  if (!parsed) return `size must look like 1024x1024, got "${size}"`;
  const { width, height } = parsed;
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (width % SIZE_RULE.multipleOf || height % SIZE_RULE.multipleOf) return `both sides must be multiples of ${SIZE_RULE.multipleOf}`;
  if (short < SIZE_RULE.minSide) return `each side must be at least ${SIZE_RULE.minSide}`;
  if (long > SIZE_RULE.maxLongSide || short > SIZE_RULE.maxShortSide) return `at most ${SIZE_RULE.maxLongSide}x${SIZE_RULE.maxShortSide}`;
  if (long / short > SIZE_RULE.maxRatio) return `the aspect ratio must be at most ${SIZE_RULE.maxRatio}:1`;
  return undefined;
}
