import { imageDimensionsFromSize, type ImageFormat } from '../image-renderer.js';

// What the simulated Responses vendor accepts: models per lane, the hosted
// image tool's options and size rules (contract §3, §6). Validation reads
// these tables; nothing else repeats them.

/** Chat models the `api` lane (API key) accepts, as the studio's catalog assigns them. */
export const API_CHAT_MODELS: readonly string[] = [
  'lang-6-astra',
  'lang-5.6-luna',
  'lang-5.6-terra',
  'lang-5.6-sol',
  'lang-5.5',
  'lang-5.4',
  'lang-5.4-mini',
];
/** Chat models the subscription backend accepts (api-only ids are refused there, as the real backend does). */
export const OAUTH_CHAT_MODELS: readonly string[] = ['lang-6-luna', 'lang-6-sol', 'lang-6-astra'];

export const IMAGE_MODELS = ['lang-image-1', 'lang-image-2'] as const;
export type ImageModel = (typeof IMAGE_MODELS)[number];
export const DEFAULT_IMAGE_MODEL: ImageModel = 'lang-image-2';

/** Sizes every image model accepts besides `auto`. */
export const FIXED_SIZES: readonly string[] = ['1024x1024', '1024x1536', '1536x1024'];
/** `lang-image-2` also takes any WxH within these rules. */
export const FLEXIBLE_SIZE = { multipleOf: 16, maxSide: 3840, maxPixels: 3840 * 2160, maxRatio: 3 } as const;
const FLEXIBLE_MODELS: ReadonlySet<string> = new Set<ImageModel>(['lang-image-2']);

export const QUALITIES = ['low', 'medium', 'high', 'auto'] as const;
export const OUTPUT_FORMATS: readonly ImageFormat[] = ['png', 'webp', 'jpeg'];
export const BACKGROUNDS = ['transparent', 'opaque', 'auto'] as const;
export const MODERATIONS = ['auto', 'low'] as const;
export const ACTIONS = ['generate', 'edit', 'auto'] as const;
export const INPUT_FIDELITIES = ['high', 'low'] as const;
export const MAX_PARTIAL_IMAGES = 3;
export const MAX_IMAGES_PER_REQUEST = 10;
export const MAX_PROMPT_CHARS = 32_000;
export const MAX_EDIT_IMAGES = 16;
export const MAX_EDIT_IMAGE_BYTES = 50 * 1024 * 1024;
export const MAX_MASK_BYTES = 4 * 1024 * 1024;
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
/** What `auto` resolves to in answers. */
export const AUTO_SIZE = '1024x1024';
export const AUTO_QUALITY = 'medium';

/** Output image tokens at 1024x1024 by quality (scaled by area for other sizes). */
const IMAGE_TOKENS_PER_MEGAPIXEL: Readonly<Record<string, number>> = { low: 272, medium: 1056, high: 4160 };

export interface ImageSettings {
  readonly model: ImageModel;
  readonly size: string;
  readonly width: number;
  readonly height: number;
  readonly quality: 'low' | 'medium' | 'high';
  readonly outputFormat: ImageFormat;
  readonly compression: number | undefined;
  readonly background: 'transparent' | 'opaque';
  readonly moderation: 'auto' | 'low';
  readonly partialImages: number;
  readonly action: 'generate' | 'edit' | 'auto';
  readonly inputFidelity: 'high' | 'low';
}

/** A request problem, shaped later as each lane's error body. */
export interface InvalidParameter {
  readonly message: string;
  readonly param: string | null;
  readonly code: string;
  /** HTTP status (400 unless stated). */
  readonly status?: number;
}

export function invalid(param: string, message: string, code = 'invalid_value'): InvalidParameter {
  return { param, message, code };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], param: string): T | InvalidParameter {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  return invalid(param, `Invalid value: '${String(value)}'. Supported values are: ${allowed.map((item) => `'${item}'`).join(', ')}.`);
}

function integerIn(value: unknown, min: number, max: number, param: string): number | InvalidParameter {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  return invalid(param, `Invalid '${param}': expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`);
}

const isProblem = (value: unknown): value is InvalidParameter =>
  typeof value === 'object' && value !== null && 'message' in value && 'code' in value;

/** Checks a size for a model; answers the pixel dimensions. */
export function checkSize(
  model: ImageModel,
  size: string,
  param: string,
): { size: string; width: number; height: number } | InvalidParameter {
  if (size === 'auto') {
    const auto = imageDimensionsFromSize(AUTO_SIZE)!;
    return { size: AUTO_SIZE, ...auto };
  }
  const dimensions = imageDimensionsFromSize(size);
  if (dimensions && FIXED_SIZES.includes(size)) return { size, ...dimensions };
  if (dimensions && FLEXIBLE_MODELS.has(model)) {
    const { width, height } = dimensions;
    const rules = FLEXIBLE_SIZE;
    const ratio = Math.max(width, height) / Math.min(width, height);
    if (width % rules.multipleOf || height % rules.multipleOf)
      return invalid(param, `Invalid size '${size}': both sides must be multiples of ${rules.multipleOf}.`);
    if (Math.max(width, height) > rules.maxSide || width * height > rules.maxPixels)
      return invalid(param, `Invalid size '${size}': the largest size is ${rules.maxSide}x2160.`);
    if (ratio > rules.maxRatio)
      return invalid(param, `Invalid size '${size}': the aspect ratio must be between 1:${rules.maxRatio} and ${rules.maxRatio}:1.`);
    return { size, width, height };
  }
  const allowed = ['auto', ...FIXED_SIZES].map((item) => `'${item}'`).join(', ');
  const extra = FLEXIBLE_MODELS.has(model) ? ' or WxH with sides divisible by 16' : '';
  return invalid(param, `Invalid value: '${size}'. Supported values are: ${allowed}${extra}.`);
}

/**
 * Validates image options (the hosted tool object, or a classic images body)
 * and fills defaults. `prefix` names the parameter path in errors (`tools[0].`).
 */
export function parseImageSettings(source: Record<string, unknown>, prefix: string): ImageSettings | InvalidParameter {
  const model = source.model === undefined ? DEFAULT_IMAGE_MODEL : source.model;
  if (typeof model !== 'string' || !(IMAGE_MODELS as readonly string[]).includes(model)) {
    return {
      ...invalid(`${prefix}model`, `The model '${String(model)}' does not exist or you do not have access to it.`, 'model_not_found'),
      status: prefix ? 400 : 404,
    };
  }
  const imageModel = model as ImageModel;
  const size =
    typeof source.size === 'string'
      ? checkSize(imageModel, source.size, `${prefix}size`)
      : source.size === undefined
        ? checkSize(imageModel, 'auto', `${prefix}size`)
        : invalid(`${prefix}size`, 'size must be a string.');
  if (isProblem(size)) return size;
  const quality = source.quality === undefined ? 'auto' : oneOf(source.quality, QUALITIES, `${prefix}quality`);
  if (isProblem(quality)) return quality;
  const outputFormat = source.output_format === undefined ? 'png' : oneOf(source.output_format, OUTPUT_FORMATS, `${prefix}output_format`);
  if (isProblem(outputFormat)) return outputFormat;
  const compression =
    source.output_compression === undefined ? undefined : integerIn(source.output_compression, 0, 100, `${prefix}output_compression`);
  if (isProblem(compression)) return compression;
  if (compression !== undefined && outputFormat === 'png' && compression !== 100) {
    return invalid(`${prefix}output_compression`, 'output_compression is only supported for jpeg and webp output formats.');
  }
  const background = source.background === undefined ? 'auto' : oneOf(source.background, BACKGROUNDS, `${prefix}background`);
  if (isProblem(background)) return background;
  if (background === 'transparent' && outputFormat === 'jpeg') {
    return invalid(`${prefix}background`, 'Transparent background is not supported for the jpeg output format; use png or webp.');
  }
  const moderation = source.moderation === undefined ? 'auto' : oneOf(source.moderation, MODERATIONS, `${prefix}moderation`);
  if (isProblem(moderation)) return moderation;
  const partialImages =
    source.partial_images === undefined ? 0 : integerIn(source.partial_images, 0, MAX_PARTIAL_IMAGES, `${prefix}partial_images`);
  if (isProblem(partialImages)) return partialImages;
  const action = source.action === undefined ? 'auto' : oneOf(source.action, ACTIONS, `${prefix}action`);
  if (isProblem(action)) return action;
  const inputFidelity =
    source.input_fidelity === undefined || source.input_fidelity === null
      ? 'low'
      : oneOf(source.input_fidelity, INPUT_FIDELITIES, `${prefix}input_fidelity`);
  if (isProblem(inputFidelity)) return inputFidelity;
  return {
    model: imageModel,
    size: size.size,
    width: size.width,
    height: size.height,
    quality: quality === 'auto' ? AUTO_QUALITY : quality,
    outputFormat,
    compression,
    background: background === 'transparent' ? 'transparent' : 'opaque',
    moderation,
    partialImages,
    action,
    inputFidelity,
  };
}

export { isProblem };

/** The image tokens an output image bills (per contract §6 usage). */
export function imageOutputTokens(settings: Pick<ImageSettings, 'quality' | 'width' | 'height'>): number {
  return Math.round((IMAGE_TOKENS_PER_MEGAPIXEL[settings.quality] * settings.width * settings.height) / (1024 * 1024));
}

/** Rough token count of text (4 characters a token), as usage needs a number. */
export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Reasoning tokens a response reports per effort. */
export const REASONING_TOKENS: Readonly<Record<string, number>> = {
  none: 0,
  minimal: 8,
  low: 32,
  medium: 96,
  high: 256,
  xhigh: 512,
  max: 1024,
};
