// The alpha vendor's controls (spec: Alpha pipeline, Video), declared once:
// the planner versions, the images API's aspect ratios and resolutions, the
// pixels it renders each selection at (the size pickers' values, and what a
// `<w>x<h>` size maps to: sizes.ts), and the video values.

export const ALPHA_PLANNER_VERSIONS = ['alpha-4.3', 'alpha-4.5', 'alpha-4.6'] as const;
export type AlphaPlanner = (typeof ALPHA_PLANNER_VERSIONS)[number];
/** Default planner; `SVC_ALPHA_PLANNER_MODEL`, the settings or `options.plannerModel` override it. */
export const DEFAULT_ALPHA_PLANNER: AlphaPlanner = 'alpha-4.3';

/** The image API's resolution values (lowercase on the wire). */
export const ALPHA_RESOLUTIONS = ['1k', '2k'] as const;
export type AlphaResolution = (typeof ALPHA_RESOLUTIONS)[number];

/**
 * The image API's native aspect ratios (contract §3) and the pixels each renders at per
 * resolution: about 1 and 4 megapixels, sides multiples of 16. The vendor also takes `auto`
 * (the model picks); the studio always sends a ratio, so `settings` say what ran.
 */
export const ALPHA_PIXELS = {
  '1:1': { '1k': [1024, 1024], '2k': [2048, 2048] },
  '3:4': { '1k': [880, 1184], '2k': [1776, 2368] },
  '4:3': { '1k': [1184, 880], '2k': [2368, 1776] },
  '9:16': { '1k': [768, 1360], '2k': [1536, 2736] },
  '16:9': { '1k': [1360, 768], '2k': [2736, 1536] },
  '2:3': { '1k': [832, 1248], '2k': [1680, 2512] },
  '3:2': { '1k': [1248, 832], '2k': [2512, 1680] },
  '9:19.5': { '1k': [688, 1504], '2k': [1392, 3008] },
  '19.5:9': { '1k': [1504, 688], '2k': [3008, 1392] },
  '9:20': { '1k': [688, 1520], '2k': [1376, 3056] },
  '20:9': { '1k': [1520, 688], '2k': [3056, 1376] },
  '1:2': { '1k': [720, 1456], '2k': [1456, 2896] },
  '2:1': { '1k': [1456, 720], '2k': [2896, 1456] },
} as const satisfies Record<string, Record<AlphaResolution, readonly [number, number]>>;

export type AlphaAspectRatio = keyof typeof ALPHA_PIXELS;
export const ALPHA_ASPECT_RATIOS = Object.keys(ALPHA_PIXELS) as AlphaAspectRatio[];

/** Without a size or options: square at 1k. */
export const ALPHA_DEFAULT_SELECTION = { aspectRatio: '1:1', resolution: '1k' } as const satisfies {
  aspectRatio: AlphaAspectRatio;
  resolution: AlphaResolution;
};

/** `WxH` of a selection. */
export const alphaPixelSize = (aspectRatio: AlphaAspectRatio, resolution: AlphaResolution): string =>
  ALPHA_PIXELS[aspectRatio][resolution].join('x');

export const VIDEO_RESOLUTIONS = ['480p', '720p', '1080p'] as const;
/** The video API's aspect ratios (contract §5); omitted: 16:9 for text, the image's own for image-to-video. */
export const VIDEO_ASPECT_RATIOS = ['16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16'] as const;
/** The video models that take 1080p (and only for text-to-video and image-to-video with one image). */
export const VIDEO_1080P_MODELS = ['alpha-video-1.5'] as const;
/** The base model: reference-to-video, video-to-video edits and extensions run on it. */
export const VIDEO_BASE_MODEL = 'alpha-video';
export const VIDEO_DURATION_SECONDS = { min: 1, max: 15 } as const;
/** References of a reference-to-video job (fewer is text- or image-to-video). */
export const REFERENCE_TO_VIDEO_REFERENCES = { min: 2, max: 14 } as const;
/** Longest reference-to-video clip per model. */
export const REFERENCE_TO_VIDEO_MAX_SECONDS = { 'alpha-video-1.5': 15, 'alpha-video': 10 } as const;
