import { LANE_IDS, type LaneCapability, type LaneId } from '../api/index.js';
import { alphaApiLane, alphaLane } from '../lanes/alpha/index.js';
import { apiLane } from '../lanes/api/index.js';
import { betaApiLane } from '../lanes/beta-api/index.js';
import { cligenLane } from '../lanes/cligen/index.js';
import { deltaLane } from '../lanes/delta/index.js';
import { epsilonLane } from '../lanes/epsilon/index.js';
import { etaLane } from '../lanes/eta/index.js';
import { flowLane } from '../lanes/flow/index.js';
import { gammaLane } from '../lanes/gamma/index.js';
import { oauthLane } from '../lanes/oauth/index.js';
import type { LaneModule } from '../lanes/types.js';
import { zetaLane } from '../lanes/zeta/index.js';

// The lane registry: every lane module by id. Adding a lane is its folder and
// one line here; validation, discovery, defaults, the CLI and the UI read it.

export const LANES: Readonly<Record<LaneId, LaneModule>> = {
  oauth: oauthLane,
  api: apiLane,
  alpha: alphaLane,
  'alpha-api': alphaApiLane,
  'beta-api': betaApiLane,
  cligen: cligenLane,
  gamma: gammaLane,
  delta: deltaLane,
  epsilon: epsilonLane,
  flow: flowLane,
  zeta: zetaLane,
  eta: etaLane,
};

/** Every lane module in the API's order. */
export const LANE_MODULES: readonly LaneModule[] = LANE_IDS.map((id) => LANES[id]);

/**
 * The order `auto` tries lanes in for image generation: the spec's default path first, then every
 * other image lane (auto considers every ready lane that can take the request). The MCP lanes run
 * through their own route.
 */
export const AUTO_ORDER: readonly LaneId[] = ['oauth', 'api', 'alpha', 'alpha-api', 'beta-api', 'cligen', 'gamma', 'delta', 'epsilon', 'flow'];

/**
 * The order a video request without a lane (and no saved video target) tries the video lanes in:
 * the first whose credential is usable, else the last (which then names what is missing). The spec
 * fixes it: alpha when its session exists, else alpha-api.
 */
export const VIDEO_AUTO_ORDER: readonly LaneId[] = ['alpha', 'alpha-api'];

/** What a lane can do, derived once from its adapter's operations and its declarations. */
export interface LaneOperations {
  readonly generate: boolean;
  readonly edit: boolean;
  readonly mask: boolean;
  readonly multimode: boolean;
}

export function operationsOf(lane: LaneModule): LaneOperations {
  const steps = lane.adapter?.steps;
  const generate = Boolean(lane.adapter?.generate ?? steps);
  const edit = Boolean(lane.adapter?.edit ?? steps?.edits);
  return { generate, edit, mask: edit && lane.maskEdits === true, multimode: generate && lane.multimode !== false };
}

/** Its capabilities as GET /api/capabilities lists them, from its declarations. */
export function capabilitiesOf(lane: LaneModule): LaneCapability[] {
  const operations = operationsOf(lane);
  const has: Readonly<Record<LaneCapability, boolean>> = { image: operations.generate, edit: operations.edit, video: lane.video !== undefined, text: (lane as { readonly text?: unknown }).text !== undefined };
  return (Object.keys(has) as LaneCapability[]).filter((capability) => has[capability]);
}

/** Lanes that take the shared default model and reasoning (one concept across them, spec: Persisted defaults). */
export const SHARED_DEFAULT_LANES: readonly LaneModule[] = LANE_MODULES.filter((lane) => lane.settings?.model?.config === 'model');
