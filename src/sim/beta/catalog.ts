// What the `:generateContent` vendor offers (contracts/beta-cloud-generate-content.md §3):
// its image models, the aspect ratios and sizes each accepts on each surface,
// the pixel size of every selection, and the tokens an image costs. These are
// the vendor's facts, kept apart from the lane's own table on purpose: a test
// comparing the two catches a lane that maps a selection wrongly.

/** The API-key surface (`beta`) or the service-account surface (`cloud`). */
export type Surface = 'key' | 'cloud';

export interface SimModel {
  readonly id: string;
  readonly displayName: string;
  /** Image sizes it accepts, by surface (empty: `imageSize` is refused). */
  readonly imageSizes: Readonly<Record<Surface, readonly string[]>>;
  /** It also takes the four extreme ratios (1:4, 4:1, 1:8, 8:1) on the key surface. */
  readonly extremeRatios: boolean;
  /** Output tokens of one image by size (the bill is tokens × the model's rate). */
  readonly imageTokens: Readonly<Record<string, number>>;
}

export const SIM_MODELS: readonly SimModel[] = [
  {
    id: 'beta-2.5-flash-image',
    displayName: 'Beta 2.5 Flash Image',
    imageSizes: { key: [], cloud: [] },
    extremeRatios: false,
    imageTokens: { '1K': 1290 },
  },
  {
    id: 'beta-3-pro-image',
    displayName: 'Beta 3 Pro Image',
    imageSizes: { key: ['1K', '2K', '4K'], cloud: ['1K', '2K', '4K'] },
    extremeRatios: false,
    imageTokens: { '1K': 1120, '2K': 1120, '4K': 2000 },
  },
  {
    id: 'beta-3.1-flash-image',
    displayName: 'Beta 3.1 Flash Image',
    imageSizes: { key: ['512', '1K', '2K', '4K'], cloud: ['1K', '2K', '4K'] },
    extremeRatios: true,
    imageTokens: { '512': 747, '1K': 1120, '2K': 1680, '4K': 2520 },
  },
];

export const findModel = (id: string): SimModel | undefined => SIM_MODELS.find((model) => model.id === id);

/** The ten ratios every image model takes; the key surface's 3.1 flash model adds four extreme ones. */
export const COMMON_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export const EXTREME_RATIOS = ['1:4', '4:1', '1:8', '8:1'] as const;

/** Pixel size at 1K of each common ratio; 2K and 4K double and quadruple it, 512 halves it. */
const SIZE_1K: Readonly<Record<string, readonly [number, number]>> = {
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
  '1:4': [512, 2048],
  '4:1': [2048, 512],
  '1:8': [368, 2944],
  '8:1': [2944, 368],
};

const SCALE: Readonly<Record<string, number>> = { '512': 0.5, '1K': 1, '2K': 2, '4K': 4 };

/** The pixel size the vendor renders for a ratio and size. */
export function pixelSize(aspectRatio: string, imageSize: string): { width: number; height: number } {
  const [width, height] = SIZE_1K[aspectRatio] ?? SIZE_1K['1:1'];
  const scale = SCALE[imageSize] ?? 1;
  return { width: Math.round(width * scale), height: Math.round(height * scale) };
}

/** `imageConfig` fields only the cloud surface has (the key surface refuses them). */
export const CLOUD_ONLY_IMAGE_FIELDS = [
  'outputMimeType',
  'outputCompressionQuality',
  'personGeneration',
  'prominentPeople',
  'imageOutputOptions',
] as const;

/** Most input images one request may carry. */
export const MAX_INPUT_IMAGES = 14;

/** Input image types accepted in `inlineData`. */
export const INPUT_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'] as const;

/** About four characters a token, and a fixed count per input image. */
export const textTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));
export const INPUT_IMAGE_TOKENS = 258;
