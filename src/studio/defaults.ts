import { ServiceError } from './errors.js';
import { isLaneId, type DefaultsRequest, type LaneId } from './api/index.js';
import { laneModel, isKnownModel } from './catalog/models.js';
import { LANE_MODULES, LANES, SHARED_DEFAULT_LANES } from './catalog/registry.js';
import type { StudioContext } from './context.js';
import { laneSettings, type Sourced } from './lanes/settings.js';
import type { LaneModule } from './lanes/types.js';

// Persisted defaults (GET/PUT /api/defaults): every lane's settings, each with
// where it comes from (environment > config.json > built-in), and the video
// target. The default model and reasoning are one concept across the lanes
// that share them (spec: `svc defaults set model` writes both oauth and api).

/** The built-in video target: the first lane with a video model, its default model. */
function builtinVideoTarget(): { lane: LaneId; model: string } {
  const lane = LANE_MODULES.find((candidate) => candidate.video) as LaneModule & { video: NonNullable<LaneModule['video']> };
  return { lane: lane.id, model: lane.video.defaultModel };
}

export type EffectiveDefaults = Record<string, Record<string, Sourced<unknown>> | Sourced<{ lane: string; model: string }>>;

/** The defaults in force, each with its source. Throws INVALID_SETTING for a bad environment value. */
export function effectiveDefaults(ctx: StudioContext): EffectiveDefaults {
  const out: EffectiveDefaults = {};
  for (const lane of LANE_MODULES) if (lane.settings) out[lane.id] = laneSettings(ctx, lane);
  const saved = ctx.settings.get().defaults?.video;
  out.video = saved ? { value: saved, source: 'config' } : { value: builtinVideoTarget(), source: 'builtin' };
  return out;
}

/**
 * The model a lane stores for a shared default: the id itself when the lane
 * has it, else its nearest equivalent (a model of this lane that another
 * sharing lane runs as the requested one: lang-6-luna → lang-5.6-luna on api).
 */
function equivalentOn(lane: LaneModule, requested: string): string | undefined {
  const own = laneModel(lane, requested);
  if (own) return own.id;
  const mappedHere = (id: string) => SHARED_DEFAULT_LANES.some((other) => other !== lane && laneModel(other, id)?.runsAs === requested);
  const candidates = lane.models.list.filter((model) => model.kind !== 'video' && mappedHere(model.id));
  return (candidates.find((model) => !model.compatibility) ?? candidates[0])?.id;
}

export interface DefaultsChange {
  readonly defaults: EffectiveDefaults;
  /** Lanes that stored another model than the one asked for, and which. */
  readonly equivalents: Readonly<Partial<Record<LaneId, { requested: string; stored: string }>>>;
}

/** Applies PUT /api/defaults (already validated in shape). */
export function changeDefaults(ctx: StudioContext, change: DefaultsRequest): DefaultsChange {
  const { model, reasoning, video, plannerModel } = change;
  const models: Partial<Record<LaneId, string>> = {};
  const equivalents: Partial<Record<LaneId, { requested: string; stored: string }>> = {};
  if (model !== undefined) {
    const valid = [
      ...new Set(SHARED_DEFAULT_LANES.flatMap((lane) => lane.models.list.filter((spec) => spec.kind !== 'video').map((spec) => spec.id))),
    ];
    if (!isKnownModel(model)) throw new ServiceError('INVALID_IMAGE_MODEL', `Unknown model "${model}".`, { details: { valid } });
    for (const lane of SHARED_DEFAULT_LANES) {
      const stored = equivalentOn(lane, model);
      if (!stored)
        throw new ServiceError(
          'INVALID_IMAGE_MODEL',
          `"${model}" has no equivalent on the ${lane.id} lane, so it cannot be the shared default model.`,
          { details: { lane: lane.id, valid } },
        );
      models[lane.id] = stored;
      if (stored !== model) equivalents[lane.id] = { requested: model, stored };
    }
  }
  let videoTarget: { lane: LaneId; model: string } | undefined;
  if (video !== undefined) {
    const [laneId, videoModel] = video.split('/');
    if (!isLaneId(laneId) || !videoModel)
      throw new ServiceError('INVALID_SETTING', 'The video target is `<lane>/<model>`, e.g. alpha/alpha-video-1.5.', {
        details: { field: 'video' },
      });
    const lane = LANES[laneId];
    if (!lane.video) {
      const videoLanes = LANE_MODULES.filter((candidate) => candidate.video).map((candidate) => candidate.id);
      throw new ServiceError(lane.codes.videoUnsupported ?? 'VIDEO_PROVIDER_UNSUPPORTED', `The ${laneId} lane does not generate video.`, {
        details: { lane: laneId, valid: videoLanes },
      });
    }
    // A video target has its own code (the lane's image-model code would name the wrong thing).
    const { models, aliases = {} } = lane.video;
    const valid = models.map((spec) => spec.id);
    const resolved = valid.find((id) => id === (aliases[videoModel] ?? videoModel));
    if (!resolved) {
      throw new ServiceError(
        'INVALID_VIDEO_MODEL',
        `"${videoModel}" is not a video model of the ${laneId} lane (valid: ${[...valid, ...Object.keys(aliases)].join(', ')}).`,
        {
          details: { field: 'video', lane: laneId, model: videoModel, valid, aliases },
        },
      );
    }
    videoTarget = { lane: laneId, model: resolved };
  }

  // The planner is one concept across the lanes that have the setting (alpha, alpha-api).
  const plannerLanes = LANE_MODULES.filter((lane) => lane.settings?.plannerModel);
  if (plannerModel !== undefined) {
    for (const lane of plannerLanes) {
      try {
        lane.settings?.plannerModel?.parse(plannerModel);
      } catch (error) {
        throw new ServiceError('INVALID_ALPHA_PLANNER_MODEL', `plannerModel ${(error as Error).message}, got "${plannerModel}".`, {
          details: { field: 'plannerModel', lane: lane.id },
        });
      }
    }
  }

  ctx.settings.update((draft) => {
    const defaults = (draft.defaults ??= {}) as Record<string, Record<string, unknown> | undefined>;
    for (const lane of SHARED_DEFAULT_LANES) {
      if (model === undefined && reasoning === undefined) break;
      defaults[lane.id] = {
        ...defaults[lane.id],
        ...(models[lane.id] !== undefined ? { model: models[lane.id] } : {}),
        ...(reasoning !== undefined ? { reasoning } : {}),
      };
    }
    if (videoTarget) (draft.defaults as { video?: unknown }).video = videoTarget;
    if (plannerModel !== undefined) for (const lane of plannerLanes) defaults[lane.id] = { ...defaults[lane.id], plannerModel };
  });
  return { defaults: effectiveDefaults(ctx), equivalents };
}
