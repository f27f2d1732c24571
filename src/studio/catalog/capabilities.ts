import * as controls from './controls.js';
import { LANES, LANE_IDS, AUTO_ORDER, KEY_NAMESPACES } from './lanes.js';
import { LIMITS } from './limits.js';
import { DEFAULT_MODELS, DEFAULT_VIDEO_MODEL, LANG_IMAGE_MODEL, MODELS, MODEL_ALIASES } from './models.js';

/** The body of GET /api/capabilities: the catalog, as clients see it. */
export function capabilities(version: string) {
  return {
    version,
    lanes: LANE_IDS.map((id) => {
      const lane = LANES[id];
      return {
        id,
        label: lane.label,
        description: lane.description,
        routingMode: id === 'auto',
        credential: lane.credential,
        supports: lane.supports,
        maxReferences: lane.maxReferences,
        timeoutSeconds: lane.timeoutMs / 1000,
        defaultModel: id === 'auto' ? undefined : DEFAULT_MODELS[id],
      };
    }),
    autoOrder: AUTO_ORDER,
    models: MODELS.map((model) => ({ ...model, aliases: Object.keys(MODEL_ALIASES).filter((alias) => MODEL_ALIASES[alias] === model.id) })),
    aliases: MODEL_ALIASES,
    defaults: { models: DEFAULT_MODELS, videoModel: DEFAULT_VIDEO_MODEL, imageRenderer: LANG_IMAGE_MODEL, alphaPlanner: controls.DEFAULT_ALPHA_PLANNER },
    values: {
      quality: controls.QUALITIES,
      moderation: controls.MODERATIONS,
      reasoningEffort: controls.REASONING_EFFORTS,
      format: controls.IMAGE_FORMATS,
      sizes: controls.COMMON_SIZES,
      sizeRule: controls.SIZE_RULE,
      alphaPlanners: controls.ALPHA_PLANNER_VERSIONS,
      alphaResolutions: controls.ALPHA_RESOLUTIONS,
      betaAspectRatios: controls.BETA_ASPECT_RATIOS,
      betaResolutionTiers: controls.BETA_RESOLUTION_TIERS,
      betaCost: controls.BETA_COST_TABLE,
      videoResolutions: controls.VIDEO_RESOLUTIONS,
      videoDurationSeconds: controls.VIDEO_DURATION_SECONDS,
    },
    keyNamespaces: Object.fromEntries(Object.entries(KEY_NAMESPACES).map(([name, spec]) => [name, { env: spec.env, managed: spec.managed }])),
    limits: LIMITS,
  };
}
