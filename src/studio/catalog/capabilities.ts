import { z } from 'zod';
import { COMMON_SIZES, type CapabilitiesBody, IMAGE_FORMATS, MODERATIONS, QUALITIES, REASONING_EFFORTS, SIZE_RULE } from '../api/index.js';
import { KEY_NAMESPACES } from '../auth/key-namespaces.js';
import { timeoutVariable } from '../lanes/budget.js';
import * as alpha from '../lanes/alpha/controls.js';
import { ALPHA_PHASES } from '../lanes/alpha/phases.js';
import { ALPHA_SIZE_TABLE } from '../lanes/alpha/sizes.js';
import * as beta from '../lanes/beta-api/controls.js';
import { LANG_IMAGE_MODEL } from '../lanes/responses/models.js';
import { DEFAULT_TRACE_PRESET, TRACE_MAX_SIDE, TRACE_PARAMETERS, TRACE_PRESETS } from '../vector/presets.js';
import { LIMITS } from './limits.js';
import { catalogAliases, catalogModels } from './models.js';
import { AUTO_ORDER, LANE_MODULES, operationsOf } from './registry.js';

/** The body of GET /api/capabilities: the registry, as clients see it. */
export function capabilities(version: string): CapabilitiesBody {
  return {
    version,
    providers: [
      { id: 'auto', label: 'Auto', description: 'Routing mode: the first ready lane of the default order that can take the request.', routingMode: true as const, autoOrder: [...AUTO_ORDER] },
      ...LANE_MODULES.map((lane) => ({
        id: lane.id,
        label: lane.label,
        description: lane.description,
        routingMode: false as const,
        built: lane.adapter !== undefined,
        credential: lane.credential,
        operations: operationsOf(lane),
        controls: [...lane.controls],
        /** The lane's own controls (the request's `options`), as JSON Schema. */
        options: lane.options ? z.toJSONSchema(lane.options) : null,
        maxInputImages: lane.maxInputImages,
        timeoutSeconds: lane.timeoutMs / 1000,
        timeoutVariable: timeoutVariable(lane.id),
        defaultModel: lane.models.default ?? null,
        defaultVideoModel: lane.models.defaultVideo ?? null,
        models: lane.models.list.map((model) => model.id),
        codes: { ...lane.codes },
      })),
    ],
    autoOrder: [...AUTO_ORDER],
    models: catalogModels(),
    aliases: catalogAliases(),
    defaults: { imageRenderer: LANG_IMAGE_MODEL, alphaPlanner: alpha.DEFAULT_ALPHA_PLANNER },
    values: {
      quality: QUALITIES,
      moderation: MODERATIONS,
      reasoningEffort: REASONING_EFFORTS,
      format: IMAGE_FORMATS,
      sizes: COMMON_SIZES,
      sizeRule: SIZE_RULE,
      alphaPlanners: alpha.ALPHA_PLANNER_VERSIONS,
      alphaResolutions: alpha.ALPHA_RESOLUTIONS,
      alphaAspectRatios: alpha.ALPHA_ASPECT_RATIOS,
      /** Every native selection with its pixels (the size picker's values). */
      alphaSizes: ALPHA_SIZE_TABLE,
      /** The pipeline's steps, in order: the phase each publishes, its budget, its variable, its timeout code. */
      alphaPhases: Object.entries(ALPHA_PHASES).map(([step, phase]) => ({ step, phase: phase.jobPhase, budgetSeconds: phase.budgetMs / 1000, variable: phase.env, timeoutCode: phase.timeoutCode })),
      betaAspectRatios: beta.BETA_ASPECT_RATIOS,
      betaResolutionTiers: beta.BETA_RESOLUTION_TIERS,
      betaCost: beta.BETA_COST_TABLE,
      videoResolutions: alpha.VIDEO_RESOLUTIONS,
      videoDurationSeconds: alpha.VIDEO_DURATION_SECONDS,
      tracing: {
        presets: TRACE_PRESETS,
        defaultPreset: DEFAULT_TRACE_PRESET,
        parameters: Object.fromEntries(Object.entries(TRACE_PARAMETERS).map(([name, schema]) => [name, z.toJSONSchema(schema, { io: 'input' })])),
        maxSide: TRACE_MAX_SIDE,
      },
    },
    keyNamespaces: KEY_NAMESPACES,
    limits: LIMITS,
  };
}
