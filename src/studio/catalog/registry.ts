import { LANE_IDS, PROMPT_BUILDER_AUTO_ORDER, type LaneCapability, type LaneId, type PromptBuilderBackend } from '../api/index.js';
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
import type { TextModel } from '../lanes/text-model.js';
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
export const AUTO_ORDER: readonly LaneId[] = [
  'oauth',
  'api',
  'alpha',
  'alpha-api',
  'beta-api',
  'cligen',
  'gamma',
  'delta',
  'epsilon',
  'flow',
];

/** A lane with a text model: a backend of the prompt builder and of Agent Mode's planner. */
export type TextLane = LaneModule & { readonly id: PromptBuilderBackend; readonly text: TextModel };

const isBackendId = (id: LaneId): id is PromptBuilderBackend => (PROMPT_BUILDER_AUTO_ORDER as readonly LaneId[]).includes(id);

/**
 * The text lanes in the order the prompt builder's `auto` tries them: the spec's order, which is
 * also the API's list of builder backends (PROMPT_BUILDER_AUTO_ORDER). Each of those lanes must
 * declare a text model, and a lane declaring one must be in that list: checked when the module loads.
 */
export const TEXT_LANES: readonly TextLane[] = PROMPT_BUILDER_AUTO_ORDER.map((id) => {
  const lane = LANES[id];
  if (!lane.text) throw new Error(`The ${id} lane is a prompt builder backend (PROMPT_BUILDER_AUTO_ORDER) but declares no text model.`);
  return { ...lane, id, text: lane.text };
});
for (const lane of LANE_MODULES) {
  if (lane.text && !isBackendId(lane.id))
    throw new Error(
      `The ${lane.id} lane declares a text model: add it to PROMPT_BUILDER_AUTO_ORDER and PROMPT_BUILDER_CHOICES (api/prompt-builder.ts) where auto should try it.`,
    );
}

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
  const has: Readonly<Record<LaneCapability, boolean>> = {
    image: operations.generate,
    edit: operations.edit,
    video: lane.video !== undefined,
    text: (lane as { readonly text?: unknown }).text !== undefined,
  };
  return (Object.keys(has) as LaneCapability[]).filter((capability) => has[capability]);
}

/** Lanes that take the shared default model and reasoning (one concept across them, spec: Persisted defaults). */
export const SHARED_DEFAULT_LANES: readonly LaneModule[] = LANE_MODULES.filter((lane) => lane.settings?.model?.config === 'model');
