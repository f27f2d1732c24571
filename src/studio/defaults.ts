import { ServiceError } from '../common/errors.js';
import { REASONING_EFFORTS, sizeProblem, type ReasoningEffort } from './catalog/controls.js';
import { DEFAULT_MODELS, DEFAULT_VIDEO_MODEL } from './catalog/models.js';
import type { StudioContext } from './context.js';

export type DefaultSource = 'env' | 'config' | 'builtin';
interface Sourced<T> {
  value: T;
  source: DefaultSource;
}

/** The `api` lane's environment defaults and their built-in values (spec: Defaults of the api lane). */
export const API_ENV_DEFAULTS = {
  SVC_API_IMAGE_MODEL_DEFAULT: DEFAULT_MODELS.api as string,
  SVC_API_REASONING_EFFORT: 'low' as ReasoningEffort,
  SVC_API_IMAGE_SIZE: '1024x1024',
  SVC_API_ALLOW_WEB_SEARCH: true,
} as const;

const pick = <T>(fromEnv: T | undefined, fromConfig: T | undefined, builtin: T): Sourced<T> =>
  fromEnv !== undefined ? { value: fromEnv, source: 'env' } : fromConfig !== undefined ? { value: fromConfig, source: 'config' } : { value: builtin, source: 'builtin' };

function envReasoning(value: string | undefined): ReasoningEffort | undefined {
  if (!value) return undefined;
  if (!(REASONING_EFFORTS as readonly string[]).includes(value)) {
    throw new ServiceError('INVALID_SETTING', `SVC_API_REASONING_EFFORT must be one of ${REASONING_EFFORTS.join(', ')}.`);
  }
  return value as ReasoningEffort;
}

function envBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ServiceError('INVALID_SETTING', `${name} must be true or false.`);
}

function envSize(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const problem = sizeProblem(value);
  if (problem) throw new ServiceError('INVALID_SETTING', `SVC_API_IMAGE_SIZE: ${problem}.`);
  return value;
}

/**
 * The defaults in force, each with where it came from. The environment wins
 * over config.json (as for keys), config.json over the built-in value.
 */
export function effectiveDefaults(ctx: StudioContext) {
  const saved = ctx.settings.get().defaults ?? {};
  const { env } = ctx;
  return {
    oauth: {
      model: pick(undefined, saved.oauth?.model, DEFAULT_MODELS.oauth as string),
      reasoning: pick<ReasoningEffort>(undefined, saved.oauth?.reasoning, 'low'),
    },
    api: {
      model: pick(env.SVC_API_IMAGE_MODEL_DEFAULT || undefined, saved.api?.model, API_ENV_DEFAULTS.SVC_API_IMAGE_MODEL_DEFAULT),
      reasoning: pick(envReasoning(env.SVC_API_REASONING_EFFORT), saved.api?.reasoning, API_ENV_DEFAULTS.SVC_API_REASONING_EFFORT),
      size: pick(envSize(env.SVC_API_IMAGE_SIZE), undefined, API_ENV_DEFAULTS.SVC_API_IMAGE_SIZE),
      allowWebSearch: pick(envBoolean('SVC_API_ALLOW_WEB_SEARCH', env.SVC_API_ALLOW_WEB_SEARCH), undefined, API_ENV_DEFAULTS.SVC_API_ALLOW_WEB_SEARCH),
    },
    video: pick(undefined, saved.video, { lane: 'alpha', model: DEFAULT_VIDEO_MODEL }),
  };
}
