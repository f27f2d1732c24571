import { ServiceError } from '../../errors.js';
import type { LaneImageRequest } from '../types.js';
import { isVersion5 } from './models.js';
import { EPSILON_DEFAULTS, EPSILON_NEGATIVE_PROMPT_MAX, type EpsilonOptions } from './options.js';

// The body of `POST /ai/generate-image` (contract §2) from a request, and the
// effective values it runs with (stored with the asset).

/** Contract §2: a missing size runs as 832x1216. */
export const EPSILON_DEFAULT_SIZE = '832x1216';
/** The vendor's clients document sides in multiples of 64. */
export const EPSILON_SIZE_MULTIPLE = 64;
/** Contract §2: `skip_cfg_above_sigma` for variety+ is √(width·height) times this. */
const VARIETY_SIGMA_FACTOR = 0.05766;

export interface EpsilonCall {
  readonly body: Record<string, unknown>;
  /** The effective values: every control, defaults filled in and model rules applied. */
  readonly settings: Record<string, unknown>;
}

function dimensions(size: string): { width: number; height: number } {
  const [width, height] = size.split('x').map(Number);
  if (width % EPSILON_SIZE_MULTIPLE || height % EPSILON_SIZE_MULTIPLE) {
    throw new ServiceError('BAD_REQUEST', `size: epsilon takes sides in multiples of ${EPSILON_SIZE_MULTIPLE}, got ${size}.`, {
      details: { lane: 'epsilon', field: 'size', multipleOf: EPSILON_SIZE_MULTIPLE },
    });
  }
  return { width, height };
}

/** Checks what the options schema cannot see, then builds the call; throws a 400 before any upstream call. */
export function epsilonCall(request: LaneImageRequest<EpsilonOptions>): EpsilonCall {
  const size = request.size ?? EPSILON_DEFAULT_SIZE;
  const { width, height } = dimensions(size);
  const negative = request.negativePrompt ?? '';
  if (negative.length > EPSILON_NEGATIVE_PROMPT_MAX) {
    throw new ServiceError(
      'BAD_REQUEST',
      `negativePrompt: epsilon takes at most ${EPSILON_NEGATIVE_PROMPT_MAX} characters; this one has ${negative.length}.`,
      {
        details: { lane: 'epsilon', field: 'negativePrompt', max: EPSILON_NEGATIVE_PROMPT_MAX, got: negative.length },
      },
    );
  }
  const { options } = request;
  const chosen = { ...EPSILON_DEFAULTS, ...options };
  const version5 = isVersion5(request.model.id);
  // Version 4.5 runs the standard quality preset and no straight alpha (contract §2).
  const qualityPresetId = version5 ? chosen.qualityPresetId : 'standard';
  const straightAlpha = version5 ? chosen.straightAlpha : false;
  const ancestral = chosen.sampler === 'k_euler_ancestral';
  const parameters: Record<string, unknown> = {
    params_version: 3,
    width,
    height,
    scale: chosen.scale,
    sampler: chosen.sampler,
    steps: chosen.steps,
    n_samples: 1,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    negative_prompt: negative,
    ucPresetId: chosen.ucPresetId,
    qualityPresetId,
    autoSmea: chosen.autoSmea,
    dynamic_thresholding: chosen.decrisper,
    cfg_rescale: chosen.cfgRescale,
    noise_schedule: chosen.noiseSchedule,
    straight_alpha: straightAlpha,
    ...(chosen.varietyPlus ? { skip_cfg_above_sigma: Math.sqrt(width * height) * VARIETY_SIGMA_FACTOR } : {}),
    ...(ancestral ? { deliberate_euler_ancestral_bug: false, prefer_brownian: true } : {}),
    controlnet_strength: 1,
    legacy: false,
    legacy_v3_extend: false,
    legacy_uc: false,
    add_original_image: true,
    use_coords: false,
    normalize_reference_strength_multiple: true,
    inpaintImg2ImgStrength: 1,
    characterPrompts: [],
    v4_prompt: { caption: { base_caption: request.prompt, char_captions: [] }, use_coords: false, use_order: true },
    v4_negative_prompt: { caption: { base_caption: negative, char_captions: [] }, legacy_uc: false },
  };
  return {
    body: { input: request.prompt, model: request.model.upstreamId, action: 'generate', parameters },
    settings: {
      model: request.model.upstreamId,
      size: `${width}x${height}`,
      negativePrompt: negative,
      sampler: chosen.sampler,
      noiseSchedule: chosen.noiseSchedule,
      steps: chosen.steps,
      scale: chosen.scale,
      cfgRescale: chosen.cfgRescale,
      seed: options.seed ?? null,
      ucPresetId: chosen.ucPresetId,
      qualityPresetId,
      autoSmea: chosen.autoSmea,
      decrisper: chosen.decrisper,
      varietyPlus: chosen.varietyPlus,
      straightAlpha,
    },
  };
}
