import type { LaneEnv } from './env.js';
import type { LaneModule } from './types.js';

/** A lane's own variable: `SVC_<LANE>_<NAME>` (e.g. SVC_BETA_API_TIMEOUT_MS). */
export const laneVariable = (lane: string, name: string): string => `SVC_${lane.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${name}`;

/** The variable that overrides a lane's time budget: `SVC_<LANE>_TIMEOUT_MS`. */
export const timeoutVariable = (lane: string): string => laneVariable(lane, 'TIMEOUT_MS');

/** A lane's whole-call budget in ms, or its variable's value when set (tests of a 360 s limit run in seconds). */
export function laneTimeoutMs(ctx: LaneEnv, lane: Pick<LaneModule, 'id' | 'timeoutMs'>): number {
  const override = Number(ctx.env[timeoutVariable(lane.id)]);
  return Number.isFinite(override) && override > 0 ? override : lane.timeoutMs;
}
