import { ServiceError } from '../errors.js';
import { isLaneId } from '../api/index.js';
import { LANES, LANE_MODULES, VIDEO_AUTO_ORDER } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import type { LaneModule } from '../lanes/types.js';
import type { VideoModel, VideoModelSpec } from '../lanes/video-model.js';

// Who makes a video: the lane (the request's provider, or the lane prefix of a
// `lane/model` id; else the saved video target's lane; else the first lane of
// the registry's video order whose credential is usable), then the model (the
// request's, else the saved target's on that lane, else the lane's default;
// aliases accepted). Only a lane with a video model makes video.

export type VideoLane = LaneModule & { readonly video: VideoModel };

export interface VideoTarget {
  readonly lane: VideoLane;
  readonly model: VideoModelSpec;
  /** What the client asked for (an alias, or the default). */
  readonly requested: string;
}

const hasVideo = (lane: LaneModule): lane is VideoLane => lane.video !== undefined;

/** The lanes that make video, in the registry's order. */
export const videoLanes = (): readonly VideoLane[] => LANE_MODULES.filter(hasVideo);

/** `lane/model` → its lane and model; a plain id has no lane. */
function splitModel(model: string | undefined): { lane?: string; model?: string } {
  const slash = model?.indexOf('/') ?? -1;
  if (model === undefined || slash <= 0) return { model };
  const prefix = model.slice(0, slash);
  return isLaneId(prefix) ? { lane: prefix, model: model.slice(slash + 1) } : { model };
}

function refuse(lane: LaneModule, provider: string): ServiceError {
  const valid = videoLanes().map((entry) => entry.id);
  const code = lane.codes.videoUnsupported ?? 'VIDEO_PROVIDER_UNSUPPORTED';
  const named = valid.length > 1 ? `${valid.slice(0, -1).join(', ')} or ${valid[valid.length - 1]}` : valid.join('');
  const message =
    code === 'VIDEO_PROVIDER_UNSUPPORTED'
      ? `Video needs provider ${named}, not ${provider}.`
      : `The ${provider} lane does not generate video; use provider ${named}.`;
  return new ServiceError(code, message, { details: { provider, valid } });
}

function laneOf(ctx: StudioContext, provider: string | undefined, modelLane: string | undefined): VideoLane {
  const asked = provider !== undefined && provider !== 'auto' ? provider : modelLane;
  if (asked !== undefined) {
    if (modelLane !== undefined && modelLane !== asked) {
      throw new ServiceError('INVALID_VIDEO_MODEL', `The model names the ${modelLane} lane but provider is ${asked}.`, {
        details: { field: 'model', provider: asked, lane: modelLane },
      });
    }
    const lane = isLaneId(asked) ? LANES[asked] : undefined;
    if (!lane)
      throw new ServiceError('VIDEO_PROVIDER_UNSUPPORTED', `Unknown provider ${asked}.`, {
        details: { provider: asked, valid: videoLanes().map((entry) => entry.id) },
      });
    if (!hasVideo(lane)) throw refuse(lane, asked);
    return lane;
  }
  const saved = ctx.settings.get().defaults?.video;
  const savedLane = saved && isLaneId(saved.lane) ? LANES[saved.lane] : undefined;
  if (savedLane && hasVideo(savedLane)) return savedLane;
  const order = VIDEO_AUTO_ORDER.map((id) => LANES[id]).filter(hasVideo);
  const ready = order.find((lane) => {
    try {
      lane.video.preflight?.(ctx);
      return true;
    } catch {
      return false;
    }
  });
  return ready ?? order[order.length - 1];
}

/** A video model of the lane by id or alias; INVALID_VIDEO_MODEL names the valid ones. */
export function videoModelOf(lane: VideoLane, asked: string): VideoModelSpec {
  const { models, aliases = {} } = lane.video;
  const model = models.find((entry) => entry.id === (aliases[asked] ?? asked));
  if (!model) {
    const valid = models.map((entry) => entry.id);
    throw new ServiceError(
      'INVALID_VIDEO_MODEL',
      `"${asked}" is not a video model of the ${lane.id} lane (valid: ${[...valid, ...Object.keys(aliases)].join(', ')}).`,
      {
        details: { field: 'model', lane: lane.id, model: asked, valid, aliases },
      },
    );
  }
  return model;
}

/** The lane and model of a video request, its lane's preflight passed; refusals name the allowed values. */
export function videoTarget(ctx: StudioContext, fields: { provider?: string; model?: string }): VideoTarget {
  const split = splitModel(fields.model);
  const lane = laneOf(ctx, fields.provider, split.lane);
  const saved = ctx.settings.get().defaults?.video;
  const requested = split.model ?? (saved?.lane === lane.id ? saved.model : undefined) ?? lane.video.defaultModel;
  // A lane with no models yet (a live catalog not read: eta, locked) says why before any model is looked up.
  if (lane.video.models.length === 0) lane.video.preflight?.(ctx);
  const model = videoModelOf(lane, requested);
  lane.video.preflight?.(ctx);
  return { lane, model, requested };
}
