import { ServiceError } from '../errors.js';
import type { PlannedModel } from '../api/index.js';
import { resolveModel } from '../catalog/models.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { checkAlphaCredential, type AlphaLaneId } from '../lanes/alpha/call.js';
import { ALPHA_PLANNER_VERSIONS, VIDEO_BASE_MODEL, type AlphaPlanner } from '../lanes/alpha/controls.js';
import { settingOf } from '../lanes/settings.js';
import type { LaneModule } from '../lanes/types.js';

// Who makes a video (spec: Video 1, 5): the lane (alpha or alpha-api only),
// the model (the request's, else the saved video target's, else the lane's
// default alpha-video-1.5; the -preview id is its alias), the planner. A
// request names the lane; without one the saved target's lane is used, else
// alpha when its session exists, else alpha-api.

export const VIDEO_LANES: readonly AlphaLaneId[] = ['alpha', 'alpha-api'];

const isVideoLane = (id: string): id is AlphaLaneId => (VIDEO_LANES as readonly string[]).includes(id);

export interface VideoTarget {
  readonly lane: LaneModule & { readonly id: AlphaLaneId };
  readonly model: PlannedModel;
  readonly plannerModel: AlphaPlanner;
}

function laneOf(ctx: StudioContext, provider: string | undefined): AlphaLaneId {
  const saved = ctx.settings.get().defaults?.video;
  if (provider === 'cligen') throw new ServiceError('CLIGEN_VIDEO_UNSUPPORTED', 'The cligen lane does not generate video; use provider alpha or alpha-api.', { details: { provider, valid: VIDEO_LANES } });
  if (provider !== undefined && provider !== 'auto') {
    if (!isVideoLane(provider)) throw new ServiceError('VIDEO_PROVIDER_UNSUPPORTED', `Video needs provider alpha or alpha-api, not ${provider}.`, { details: { provider, valid: VIDEO_LANES } });
    return provider;
  }
  if (saved && isVideoLane(saved.lane)) return saved.lane;
  try {
    checkAlphaCredential(ctx, 'alpha');
    return 'alpha';
  } catch {
    return 'alpha-api';
  }
}

/** The lane, model and planner of a video request; refusals name the allowed values. */
export function videoTarget(ctx: StudioContext, fields: { provider?: string; model?: string; plannerModel?: string }): VideoTarget {
  const laneId = laneOf(ctx, fields.provider);
  const lane = LANES[laneId] as VideoTarget['lane'];
  const saved = ctx.settings.get().defaults?.video;
  const asked = fields.model ?? (saved?.lane === laneId ? saved.model : undefined);
  let model: PlannedModel;
  try {
    const { requested, id, upstreamId } = resolveModel(lane, asked, 'video');
    model = { requested, id, upstreamId };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const valid = lane.models.list.filter((spec) => spec.kind === 'video').map((spec) => spec.id);
    throw new ServiceError('INVALID_VIDEO_MODEL', `"${asked}" is not a video model of the ${laneId} lane (valid: ${[...valid, ...Object.keys(lane.models.aliases ?? {})].join(', ')}).`, {
      details: { field: 'model', lane: laneId, model: asked, valid, aliases: lane.models.aliases ?? {} },
    });
  }
  const plannerModel = fields.plannerModel ?? settingOf<AlphaPlanner>(ctx, lane, 'plannerModel');
  if (!(ALPHA_PLANNER_VERSIONS as readonly string[]).includes(plannerModel)) {
    throw new ServiceError('INVALID_ALPHA_PLANNER_MODEL', `Unknown planner model "${plannerModel}" (valid: ${ALPHA_PLANNER_VERSIONS.join(', ')}).`, { details: { field: 'plannerModel', valid: ALPHA_PLANNER_VERSIONS } });
  }
  lane.adapter?.preflight?.(ctx);
  return { lane, model, plannerModel: plannerModel as AlphaPlanner };
}

/** The base model, as a planned model keeping what was asked for (reference-to-video, edits and extensions run on it). */
export function baseModel(target: VideoTarget): PlannedModel {
  const spec = target.lane.models.list.find((model) => model.id === VIDEO_BASE_MODEL);
  return { requested: target.model.requested, id: VIDEO_BASE_MODEL, upstreamId: spec?.upstreamId ?? VIDEO_BASE_MODEL };
}
