import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';

// The epsilon vendor's native sampling controls (contract §2.1), declared once:
// allowed values, ranges and the operator defaults. They are the lane's own
// options (the request's `options`; `negativePrompt` is the shared top-level
// field). Out-of-set values and numbers out of range are refused with a 400
// naming the field and what it allows: the user chose them, so they are never
// silently dropped or clamped.

export const EPSILON_SAMPLERS = [
  'k_euler',
  'k_euler_ancestral',
  'k_dpmpp_2s_ancestral',
  'k_dpmpp_2m',
  'k_dpmpp_sde',
  'k_dpmpp_2m_sde',
] as const;
export const EPSILON_NOISE_SCHEDULES = ['native', 'karras', 'exponential', 'polyexponential'] as const;
export const EPSILON_UC_PRESETS = ['heavy', 'light', 'furryFocus', 'humanFocus', 'none'] as const;
export const EPSILON_QUALITY_PRESETS = ['standard', 'light', 'none'] as const;

export const EPSILON_RANGES = {
  steps: { min: 1, max: 50, integer: true },
  scale: { min: 1, max: 10, integer: false },
  cfgRescale: { min: 0, max: 1, integer: false },
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
} as const;

/** What runs when an option is not given (the source's operator defaults). */
export const EPSILON_DEFAULTS = {
  sampler: 'k_euler_ancestral',
  noiseSchedule: 'karras',
  // 23 keeps the top tier's free allowance (at most 28).
  steps: 23,
  scale: 5,
  cfgRescale: 0,
  ucPresetId: 'heavy',
  qualityPresetId: 'standard',
  autoSmea: false,
  decrisper: false,
  varietyPlus: false,
  straightAlpha: false,
} as const;

/** The longest negative prompt the vendor takes. */
export const EPSILON_NEGATIVE_PROMPT_MAX = 10_000;

function ranged(name: keyof typeof EPSILON_RANGES) {
  const { min, max, integer } = EPSILON_RANGES[name];
  const rule = `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`;
  const number = integer ? z.number(rule).int(rule) : z.number(rule);
  return number.min(min, rule).max(max, rule);
}

// Each option's default is in its JSON Schema (capabilities), so a client shows what runs when it is left out;
// its title is what a person reads (the vendor's names, ucPresetId, are not).
export const epsilonOptions = lazy(() =>
  z
    .object({
      sampler: z.enum(EPSILON_SAMPLERS).optional().meta({ title: 'Sampler', default: EPSILON_DEFAULTS.sampler }),
      noiseSchedule: z.enum(EPSILON_NOISE_SCHEDULES).optional().meta({ title: 'Noise schedule', default: EPSILON_DEFAULTS.noiseSchedule }),
      steps: ranged('steps').optional().meta({ title: 'Steps', default: EPSILON_DEFAULTS.steps }),
      scale: ranged('scale').optional().meta({ title: 'Prompt guidance', default: EPSILON_DEFAULTS.scale }),
      cfgRescale: ranged('cfgRescale').optional().meta({ title: 'Guidance rescale', default: EPSILON_DEFAULTS.cfgRescale }),
      seed: ranged('seed').optional().meta({ title: 'Seed' }).describe('Omitted: the vendor picks one.'),
      ucPresetId: z.enum(EPSILON_UC_PRESETS).optional().meta({ title: 'Undesired content preset', default: EPSILON_DEFAULTS.ucPresetId }),
      qualityPresetId: z
        .enum(EPSILON_QUALITY_PRESETS)
        .optional()
        .meta({ title: 'Quality tags preset', default: EPSILON_DEFAULTS.qualityPresetId })
        .describe('Version 5 models only; 4.5 models always run standard.'),
      autoSmea: z.boolean().optional().meta({ title: 'SMEA (auto)', default: EPSILON_DEFAULTS.autoSmea }),
      decrisper: z.boolean().optional().meta({ title: 'Decrisper', default: EPSILON_DEFAULTS.decrisper }),
      varietyPlus: z.boolean().optional().meta({ title: 'Variety+', default: EPSILON_DEFAULTS.varietyPlus }),
      straightAlpha: z
        .boolean()
        .optional()
        .meta({ title: 'Straight alpha', default: EPSILON_DEFAULTS.straightAlpha })
        .describe('Version 5 models only (an RGBA PNG); off on 4.5 models.'),
    })
    .strict(),
);

export type EpsilonOptions = z.infer<typeof epsilonOptions>;
