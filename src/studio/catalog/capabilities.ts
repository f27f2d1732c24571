import { z } from 'zod';
import {
  capabilitiesBody,
  COMMON_SIZES,
  type CapabilitiesBody,
  type LaneVideoCapability,
  videoLimits,
  IMAGE_FORMATS,
  MODERATIONS,
  QUALITIES,
  REASONING_EFFORTS,
  SIZE_RULE,
} from '../api/index.js';
import { KEY_NAMESPACES } from '../auth/key-namespaces.js';
import { timeoutVariable } from '../lanes/budget.js';
import { DEFAULT_TRACE_PRESET, TRACE_MAX_SIDE, TRACE_PARAMETERS, TRACE_PRESETS } from '../vector/presets.js';
import { laneExtras } from './extras.js';
import { LIMITS } from './limits.js';
import type { StudioContext } from '../context.js';
import { catalogAliases, catalogModels, defaultModel, laneModels } from './models.js';
import type { LaneModule } from '../lanes/types.js';
import { AUTO_ORDER, capabilitiesOf, LANE_MODULES, operationsOf } from './registry.js';

// What the lanes add (their module's `capabilities`), merged once. The contract names the
// defaults, so the lanes' defaults must be exactly those (checked when the module loads).
const LANE_VALUES = laneExtras('values');
const LANE_DEFAULTS = capabilitiesBody.shape.defaults.strict().parse(laneExtras('defaults'));

/** A lane's video models with their limits and own options (JSON Schema). */
function videoCapability(lane: LaneModule): LaneVideoCapability | null {
  const { video } = lane;
  if (!video) return null;
  return {
    defaultModel: video.defaultModel,
    aliases: { ...video.aliases },
    models: video.models.map((model) => {
      const options = model.options ?? video.options;
      return {
        id: model.id,
        ...(model.label ? { label: model.label } : {}),
        description: model.description,
        limits: videoLimits.parse(model.limits),
        options: options ? z.toJSONSchema(options) : null,
      };
    }),
  };
}

/** The body of GET /api/capabilities: the registry, as clients see it. */
export function capabilities(version: string): CapabilitiesBody {
  return {
    version,
    providers: [
      {
        id: 'auto',
        label: 'Auto',
        description: 'Routing mode: the first ready lane of the default order that can take the request.',
        routingMode: true as const,
        autoOrder: [...AUTO_ORDER],
      },
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
        defaultVideoModel: lane.video?.defaultModel ?? null,
        models: lane.models.list.map((model) => model.id),
        capabilities: capabilitiesOf(lane),
        video: videoCapability(lane),
        text: lane.text
          ? {
              models: lane.text.models.map((model) => ({ ...model })),
              defaultModel: lane.text.defaultModel,
              webSearch: lane.text.webSearch,
            }
          : null,
        codes: { ...lane.codes },
      })),
    ],
    autoOrder: [...AUTO_ORDER],
    models: catalogModels(),
    aliases: catalogAliases(),
    defaults: LANE_DEFAULTS,
    values: {
      quality: QUALITIES,
      moderation: MODERATIONS,
      reasoningEffort: REASONING_EFFORTS,
      format: IMAGE_FORMATS,
      sizes: COMMON_SIZES,
      sizeRule: SIZE_RULE,
      // The lanes' own values: price tables, native sizes, phases, video.
      ...LANE_VALUES,
      tracing: {
        presets: TRACE_PRESETS,
        defaultPreset: DEFAULT_TRACE_PRESET,
        parameters: Object.fromEntries(
          Object.entries(TRACE_PARAMETERS).map(([name, schema]) => [name, z.toJSONSchema(schema, { io: 'input' })]),
        ),
        maxSide: TRACE_MAX_SIDE,
      },
    },
    keyNamespaces: KEY_NAMESPACES,
    limits: LIMITS,
  };
}

/**
 * The body with the models the lanes discover at run time (flow's workflows) read now: the
 * declared part is built once (`capabilities`), this adds what changes while the studio runs.
 */
export function withDiscoveredModels(body: CapabilitiesBody, ctx: StudioContext): CapabilitiesBody {
  const discovering = LANE_MODULES.filter((lane) => lane.models.discover);
  if (discovering.length === 0) return body;
  return {
    ...body,
    providers: body.providers.map((provider) => {
      const lane = discovering.find((candidate) => candidate.id === provider.id);
      if (!lane || provider.routingMode) return provider;
      const models = laneModels(lane, ctx);
      return { ...provider, models: models.map((model) => model.id), defaultModel: defaultModel(lane, 'image', models) ?? null };
    }),
    models: catalogModels(ctx),
  };
}
