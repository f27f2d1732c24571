// What the alpha vendor offers (contracts/alpha-images-and-video-jobs.md §3–6):
// its models, the aspect ratios and resolutions of the images API, the pixel
// size it renders each at, and what an image costs. These are the vendor's
// facts, kept apart from the lane's own table on purpose: a test comparing the
// two catches a lane that maps a size wrongly.

/** Image models; `-pro` is deprecated but still accepted, and takes one source image in an edit. */
export const SIM_IMAGE_MODELS = ['alpha-image', 'alpha-image-quality', 'alpha-image-2.0', 'alpha-image-pro'] as const;
export type SimImageModel = (typeof SIM_IMAGE_MODELS)[number];
/** Chat models the planner runs on (Responses API). */
export const SIM_PLANNER_MODELS = ['alpha-4.3', 'alpha-4.5', 'alpha-4.6'] as const;
export const SIM_VIDEO_MODELS = ['alpha-video', 'alpha-video-1.5'] as const;
/** Every id `GET /v1/models` lists. */
export const SIM_ALL_MODELS: readonly string[] = [...SIM_PLANNER_MODELS, ...SIM_IMAGE_MODELS, ...SIM_VIDEO_MODELS];

export const SIM_RESOLUTIONS = ['1k', '2k'] as const;
export type SimResolution = (typeof SIM_RESOLUTIONS)[number];

/** Width × height the vendor renders for each ratio and resolution (about 1 and 4 megapixels). */
export const SIM_PIXELS: Readonly<Record<string, Readonly<Record<SimResolution, readonly [number, number]>>>> = {
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
};
/** `auto` is accepted too: the model picks (the simulator: square). */
export const SIM_ASPECT_RATIOS: readonly string[] = [...Object.keys(SIM_PIXELS), 'auto'];

/** The ratio of the table nearest to `width / height` (a single-image edit keeps its source's ratio). */
export function nearestSimRatio(width: number, height: number): string {
  let best = '1:1';
  let distance = Infinity;
  for (const ratio of Object.keys(SIM_PIXELS)) {
    const [w, h] = ratio.split(':').map(Number);
    const gap = Math.abs(Math.log(width / height) - Math.log(w / h));
    if (gap < distance) [best, distance] = [ratio, gap];
  }
  return best;
}

/** USD per image by model, at 1k; 2k costs twice as much. */
const PRICE_USD: Readonly<Record<SimImageModel, number>> = {
  'alpha-image': 0.02,
  'alpha-image-quality': 0.07,
  'alpha-image-2.0': 0.05,
  'alpha-image-pro': 0.07,
};

/** 1 USD = 10^10 ticks (contract §3). */
export const TICKS_PER_USD = 10_000_000_000;

export const imageCostTicks = (model: SimImageModel, resolution: SimResolution): number =>
  Math.round(PRICE_USD[model] * (resolution === '2k' ? 2 : 1) * TICKS_PER_USD);
