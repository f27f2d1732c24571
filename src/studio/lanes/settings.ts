import { ServiceError } from '../errors.js';
import { REASONING_EFFORTS, sizeProblem, type ReasoningEffort } from '../api/index.js';
import type { LaneEnv } from './env.js';
import type { LaneModule, LaneSetting } from './types.js';

// Parsers of lane settings from the environment: a bad value is the server's
// misconfiguration, so `svc serve` refuses to start and names it.

export const modelSetting = (builtin: string, env?: string): LaneSetting<string> => ({
  env,
  config: 'model',
  builtin,
  parse: (text) => text,
});

export const reasoningSetting = (builtin: ReasoningEffort, env?: string): LaneSetting<ReasoningEffort> => ({
  env,
  config: 'reasoning',
  builtin,
  parse: (text) => {
    if (!(REASONING_EFFORTS as readonly string[]).includes(text)) throw new Error(`must be one of ${REASONING_EFFORTS.join(', ')}`);
    return text as ReasoningEffort;
  },
});

export const sizeSetting = (builtin: string, env: string): LaneSetting<string> => ({
  env,
  builtin,
  parse: (text) => {
    const problem = sizeProblem(text);
    if (problem) throw new Error(problem);
    return text;
  },
});

export const booleanSetting = (builtin: boolean, env: string): LaneSetting<boolean> => ({
  env,
  builtin,
  parse: (text) => {
    if (/^(1|true|yes|on)$/i.test(text)) return true;
    if (/^(0|false|no|off)$/i.test(text)) return false;
    throw new Error('must be true or false');
  },
});

export type SettingSource = 'env' | 'config' | 'builtin';
export interface Sourced<T> {
  readonly value: T;
  readonly source: SettingSource;
}

/**
 * A lane setting in force and where it came from: the environment (when the
 * setting names a variable), then `defaults.<lane>` in config.json, then the
 * built-in value. Throws INVALID_SETTING for an environment value that does
 * not parse (start-up checks every one, so a running studio never does).
 */
export function sourcedSetting<T>(ctx: LaneEnv, lane: LaneModule, name: string): Sourced<T> {
  const setting = lane.settings?.[name] as LaneSetting<T> | undefined;
  if (!setting) throw new Error(`The ${lane.id} lane has no setting ${name}.`);
  const fromEnv = setting.env ? ctx.env[setting.env] : undefined;
  if (setting.env && fromEnv !== undefined && fromEnv !== '') {
    try {
      return { value: setting.parse(fromEnv), source: 'env' };
    } catch (error) {
      throw new ServiceError('INVALID_SETTING', `${setting.env}: ${(error as Error).message}.`, { details: { variable: setting.env } });
    }
  }
  const saved = setting.config
    ? (ctx.settings.get().defaults?.[lane.id] as Record<string, unknown> | undefined)?.[setting.config]
    : undefined;
  if (saved !== undefined) return { value: saved as T, source: 'config' };
  return { value: setting.builtin, source: 'builtin' };
}

export const settingOf = <T>(ctx: LaneEnv, lane: LaneModule, name: string): T => sourcedSetting<T>(ctx, lane, name).value;

/** Every setting of a lane, sourced. */
export function laneSettings(ctx: LaneEnv, lane: LaneModule): Record<string, Sourced<unknown>> {
  return Object.fromEntries(Object.keys(lane.settings ?? {}).map((name) => [name, sourcedSetting(ctx, lane, name)]));
}
