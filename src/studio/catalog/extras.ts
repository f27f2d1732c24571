import type { CapabilityExtras } from '../lanes/types.js';
import { LANE_MODULES } from './registry.js';

/**
 * One part of what the lanes add to GET /api/capabilities (`values`, `defaults` or `limits`),
 * merged by name in the registry's order. Lanes sharing a fact share its value (the alpha
 * pair, the two Responses lanes); the same name with two values is a mistake, refused at load.
 */
export function laneExtras(part: keyof CapabilityExtras): Readonly<Record<string, unknown>> {
  const merged: Record<string, unknown> = {};
  for (const lane of LANE_MODULES) {
    for (const [name, value] of Object.entries(lane.capabilities?.[part] ?? {})) {
      if (Object.hasOwn(merged, name) && merged[name] !== value)
        throw new Error(`Capabilities ${part}.${name} is declared by two lanes with different values.`);
      merged[name] = value;
    }
  }
  return merged;
}
