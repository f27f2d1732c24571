// The checks the epsilon vendor makes on `POST /ai/generate-image` bodies
// (contract §2), answering the problem's text, or the parsed request.

export const EPSILON_SIM_MODELS = [
  'epsilon-diffusion-5-full',
  'epsilon-diffusion-5-curated',
  'epsilon-diffusion-4-5-full',
  'epsilon-diffusion-4-5-curated',
];
const SAMPLERS = ['k_euler', 'k_euler_ancestral', 'k_dpmpp_2s_ancestral', 'k_dpmpp_2m', 'k_dpmpp_sde', 'k_dpmpp_2m_sde', 'ddim_v3'];
const NOISE_SCHEDULES = ['native', 'karras', 'exponential', 'polyexponential'];
const UC_PRESETS = ['heavy', 'light', 'furryFocus', 'humanFocus', 'none'];
const QUALITY_PRESETS = ['standard', 'light', 'none'];
/** Keys every request carries (contract §2: "every key always present unless noted"). */
const REQUIRED = [
  'params_version',
  'width',
  'height',
  'scale',
  'sampler',
  'steps',
  'n_samples',
  'negative_prompt',
  'ucPresetId',
  'qualityPresetId',
  'autoSmea',
  'dynamic_thresholding',
  'cfg_rescale',
  'noise_schedule',
  'straight_alpha',
  'v4_prompt',
  'v4_negative_prompt',
];
/** Pixel cap of one image (ours: generous above the free tier's ~1 MP). */
const MAX_PIXELS = 3 * 1024 * 1024;

export interface GenerateRequest {
  readonly prompt: string;
  readonly model: string;
  readonly width: number;
  readonly height: number;
  readonly straightAlpha: boolean;
  /** The caller's seed; without one the simulator picks one, as the vendor does. */
  readonly seed?: number;
}

const isNumberIn = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;

export function parseGenerateBody(body: unknown): GenerateRequest | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body must be a JSON object';
  const { input, model, action, parameters } = body as Record<string, unknown>;
  if (typeof input !== 'string' || !input.trim()) return 'input must be a non-empty string';
  if (typeof model !== 'string' || !EPSILON_SIM_MODELS.includes(model)) return `model must be one of ${EPSILON_SIM_MODELS.join(', ')}`;
  if (action !== 'generate') return 'action must be "generate" on this route';
  if (!parameters || typeof parameters !== 'object') return 'parameters must be an object';
  const p = parameters as Record<string, unknown>;
  const missing = REQUIRED.filter((key) => p[key] === undefined);
  if (missing.length) return `parameters missing: ${missing.join(', ')}`;
  if (p.params_version !== 3) return 'params_version must be 3';
  const { width, height } = p;
  if (typeof width !== 'number' || typeof height !== 'number' || width % 64 || height % 64 || width < 64 || height < 64)
    return 'width and height must be multiples of 64';
  if (width * height > MAX_PIXELS) return `width x height must be at most ${MAX_PIXELS} pixels`;
  if (!isNumberIn(p.scale, 0, 10)) return 'scale must be 0-10';
  if (!isNumberIn(p.steps, 1, 50) || !Number.isInteger(p.steps)) return 'steps must be an integer 1-50';
  if (p.n_samples !== 1) return 'n_samples must be 1';
  if (!SAMPLERS.includes(String(p.sampler))) return `sampler must be one of ${SAMPLERS.join(', ')}`;
  if (!NOISE_SCHEDULES.includes(String(p.noise_schedule))) return `noise_schedule must be one of ${NOISE_SCHEDULES.join(', ')}`;
  if (!UC_PRESETS.includes(String(p.ucPresetId))) return `ucPresetId must be one of ${UC_PRESETS.join(', ')}`;
  if (!QUALITY_PRESETS.includes(String(p.qualityPresetId))) return `qualityPresetId must be one of ${QUALITY_PRESETS.join(', ')}`;
  if (!isNumberIn(p.cfg_rescale, 0, 1)) return 'cfg_rescale must be 0-1';
  for (const flag of ['autoSmea', 'dynamic_thresholding', 'straight_alpha'])
    if (typeof p[flag] !== 'boolean') return `${flag} must be a boolean`;
  if (p.seed !== undefined && (!Number.isInteger(p.seed) || !isNumberIn(p.seed, 0, 2 ** 32 - 1)))
    return 'seed must be an integer 0-4294967295';
  if (typeof p.negative_prompt !== 'string') return 'negative_prompt must be a string';
  const caption = (p.v4_prompt as { caption?: { base_caption?: unknown } } | null)?.caption?.base_caption;
  if (caption !== input) return 'v4_prompt.caption.base_caption must repeat input';
  return {
    prompt: input,
    model,
    width,
    height,
    straightAlpha: p.straight_alpha === true,
    ...(typeof p.seed === 'number' ? { seed: p.seed } : {}),
  };
}
