import { ServiceError } from '../../errors.js';
import type { PlannedModel, VideoClipPlan, VideoMode } from '../../api/index.js';
import type { LaneEnv } from '../env.js';
import { clipLimits, videoModeOf } from '../video-limits.js';
import type { VideoGenerateMode, VideoLimits, VideoModelSpec, VideoPlan, VideoPlanRequest } from '../video-model.js';
import {
  ALPHA_PLANNER_VERSIONS,
  REFERENCE_TO_VIDEO_MAX_SECONDS,
  REFERENCE_TO_VIDEO_REFERENCES,
  VIDEO_1080P_MODELS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_BASE_MODEL,
  VIDEO_DURATION_SECONDS,
  VIDEO_RESOLUTIONS,
  type AlphaPlanner,
} from './controls.js';

// The alpha lanes' video models and the spec's video rules (Video 2–5, Limits),
// each refusal naming its rule and the allowed values: the mode from the
// reference count, the duration (1–15 s; reference-to-video 15 s on
// alpha-video-1.5, 10 s on alpha-video), the resolution (1080p only for
// alpha-video-1.5 text-to-video and one-image image-to-video), the aspect
// ratio; reference-to-video, edits and extensions run on the base model.

/** The contract's clients' default length (6 s) and resolution. */
const DEFAULT_SECONDS = 6;
const DEFAULT_RESOLUTION = '480p';
/** Longest source a video-to-video edit takes (contract §5: about 8.7 s). */
export const EDIT_SOURCE_MAX_SECONDS = 8.7;

const limitsOf = (model: keyof typeof REFERENCE_TO_VIDEO_MAX_SECONDS): VideoLimits => {
  const fullHd = (VIDEO_1080P_MODELS as readonly string[]).includes(model);
  const resolutions = VIDEO_RESOLUTIONS.filter((resolution) => resolution !== '1080p' || fullHd);
  return {
    modes: ['text-to-video', 'image-to-video', 'reference-to-video'],
    durations: VIDEO_DURATION_SECONDS,
    defaultDuration: DEFAULT_SECONDS,
    resolutions,
    defaultResolution: DEFAULT_RESOLUTION,
    aspectRatios: VIDEO_ASPECT_RATIOS,
    references: REFERENCE_TO_VIDEO_REFERENCES,
    // 1080p is text- and one-image image-to-video only.
    byMode: {
      'reference-to-video': {
        durations: { min: VIDEO_DURATION_SECONDS.min, max: REFERENCE_TO_VIDEO_MAX_SECONDS[model] },
        resolutions: resolutions.filter((resolution) => resolution !== '1080p'),
      },
    },
    edit: { maxSourceSeconds: EDIT_SOURCE_MAX_SECONDS },
    extend: { durations: VIDEO_DURATION_SECONDS },
  };
};

export const ALPHA_VIDEO_MODELS: readonly VideoModelSpec[] = [
  {
    id: 'alpha-video',
    label: 'alpha-video',
    description: 'Base video model: reference-to-video, edit, extension.',
    limits: limitsOf('alpha-video'),
  },
  {
    id: 'alpha-video-1.5',
    label: 'alpha-video-1.5',
    description: 'Default video model for text-to-video and image-to-video, 1080p where supported.',
    limits: limitsOf('alpha-video-1.5'),
  },
];
export const ALPHA_DEFAULT_VIDEO_MODEL = 'alpha-video-1.5';
export const ALPHA_VIDEO_ALIASES = { 'alpha-video-1.5-preview': 'alpha-video-1.5' } as const;

const limitsOfModel = (id: string): VideoLimits => (ALPHA_VIDEO_MODELS.find((model) => model.id === id) ?? ALPHA_VIDEO_MODELS[0]).limits;

/** 0 references: text-to-video; 1: image-to-video; 2–14: reference-to-video. */
export function modeOf(references: number): VideoGenerateMode {
  if (references > REFERENCE_TO_VIDEO_REFERENCES.max) {
    throw new ServiceError(
      'VIDEO_REFERENCES_TOO_MANY',
      `Reference-to-video takes ${REFERENCE_TO_VIDEO_REFERENCES.min} to ${REFERENCE_TO_VIDEO_REFERENCES.max} reference images; got ${references}.`,
      {
        details: { field: 'references', min: REFERENCE_TO_VIDEO_REFERENCES.min, max: REFERENCE_TO_VIDEO_REFERENCES.max, got: references },
      },
    );
  }
  return videoModeOf(references);
}

/** The longest clip a mode and model allow. */
const maxSecondsOf = (mode: VideoMode, model: string): number => {
  const { durations } = clipLimits(limitsOfModel(model), mode);
  return 'values' in durations ? Math.max(...durations.values) : durations.max;
};

/** The clip's whole seconds, checked against the mode's and the model's limits. */
export function checkDuration(value: number | undefined, mode: VideoMode, requestedModel: string, field = 'duration'): number {
  const seconds = value ?? DEFAULT_SECONDS;
  const max = maxSecondsOf(mode, requestedModel);
  if (!Number.isInteger(seconds) || seconds < VIDEO_DURATION_SECONDS.min || seconds > max) {
    const rule =
      mode === 'reference-to-video'
        ? `reference-to-video on ${requestedModel} lasts at most ${max} s`
        : `a video lasts ${VIDEO_DURATION_SECONDS.min} to ${VIDEO_DURATION_SECONDS.max} s`;
    throw new ServiceError(
      'VIDEO_DURATION_OUT_OF_RANGE',
      `duration must be a whole number of seconds from ${VIDEO_DURATION_SECONDS.min} to ${max} (${rule}); got ${seconds}.`,
      {
        details: {
          field,
          min: VIDEO_DURATION_SECONDS.min,
          max,
          got: seconds,
          mode,
          model: requestedModel,
          referenceToVideoMaxSeconds: REFERENCE_TO_VIDEO_MAX_SECONDS,
        },
      },
    );
  }
  return seconds;
}

/** The resolution (default 480p); 1080p only where the spec allows it. */
export function checkResolution(value: string | undefined, mode: VideoMode, requestedModel: string): string {
  const resolution = value ?? DEFAULT_RESOLUTION;
  if (!(VIDEO_RESOLUTIONS as readonly string[]).includes(resolution)) {
    throw new ServiceError(
      'VIDEO_RESOLUTION_UNSUPPORTED',
      `resolution must be one of ${VIDEO_RESOLUTIONS.join(', ')}; got "${resolution}".`,
      { details: { field: 'resolution', valid: VIDEO_RESOLUTIONS, got: resolution } },
    );
  }
  const valid = [...clipLimits(limitsOfModel(requestedModel), mode).resolutions];
  if (!valid.includes(resolution)) {
    throw new ServiceError(
      'VIDEO_RESOLUTION_UNSUPPORTED',
      `1080p is available only on ${VIDEO_1080P_MODELS.join(', ')} for text-to-video and image-to-video with one image; ${mode} on ${requestedModel} takes ${valid.join(', ')}.`,
      {
        details: {
          field: 'resolution',
          valid,
          got: resolution,
          mode,
          model: requestedModel,
          rule: '1080p: alpha-video-1.5 text-to-video or one-image image-to-video only',
        },
      },
    );
  }
  return resolution;
}

export function checkAspectRatio(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!(VIDEO_ASPECT_RATIOS as readonly string[]).includes(value)) {
    throw new ServiceError(
      'VIDEO_ASPECT_RATIO_UNSUPPORTED',
      `aspectRatio must be one of ${VIDEO_ASPECT_RATIOS.join(', ')}; got "${value}".`,
      { details: { field: 'aspectRatio', valid: VIDEO_ASPECT_RATIOS, got: value } },
    );
  }
  return value;
}

/** The planner: the asked one, else the lane's setting; INVALID_ALPHA_PLANNER_MODEL names the valid ones. */
export function checkPlanner(planner: string): AlphaPlanner {
  if (!(ALPHA_PLANNER_VERSIONS as readonly string[]).includes(planner)) {
    throw new ServiceError(
      'INVALID_ALPHA_PLANNER_MODEL',
      `Unknown planner model "${planner}" (valid: ${ALPHA_PLANNER_VERSIONS.join(', ')}).`,
      { details: { field: 'plannerModel', valid: ALPHA_PLANNER_VERSIONS } },
    );
  }
  return planner as AlphaPlanner;
}

/** The spec's plan of an alpha video request; `planner` resolves the planner model (the request's, else the lane's setting). */
export function planAlphaVideo(_ctx: LaneEnv, request: VideoPlanRequest, planner: string): VideoPlan {
  const plannerModel = checkPlanner(request.plannerModel ?? planner);
  if (Object.keys(request.options).length > 0)
    throw new ServiceError('BAD_REQUEST', 'The alpha video models take no options.', {
      details: { field: 'options', unknown: Object.keys(request.options) },
    });
  const chosen: PlannedModel = {
    requested: request.requested,
    id: request.model.id,
    upstreamId: request.model.upstreamId ?? request.model.id,
  };
  // Reference-to-video, edits and extensions run on the base model (keeping what was asked for).
  const base = ALPHA_VIDEO_MODELS.find((model) => model.id === VIDEO_BASE_MODEL) as VideoModelSpec;
  const baseModel: PlannedModel = { requested: request.requested, id: base.id, upstreamId: base.upstreamId ?? base.id };
  const [first] = request.clips;
  if (request.operation === 'edit') {
    const seconds = request.source?.seconds ?? 0;
    if (seconds > EDIT_SOURCE_MAX_SECONDS) {
      throw new ServiceError(
        'VIDEO_SOURCE_TOO_LONG',
        `A video-to-video edit takes a source of at most ${EDIT_SOURCE_MAX_SECONDS} s; ${request.source?.filename ?? 'the source'} lasts ${seconds} s.`,
        {
          details: { field: 'video', max: EDIT_SOURCE_MAX_SECONDS, got: seconds },
        },
      );
    }
    return {
      plannerModel,
      clips: [{ prompt: first.prompt, duration: Math.max(1, Math.round(seconds)), mode: 'video-to-video', model: baseModel }],
    };
  }
  if (request.operation === 'extend')
    return {
      plannerModel,
      clips: [
        {
          prompt: first.prompt,
          duration: checkDuration(first.duration, 'extension', request.requested),
          mode: 'extension',
          model: baseModel,
        },
      ],
    };
  const mode = modeOf(request.references);
  const aspectRatio = checkAspectRatio(request.aspectRatio);
  const resolution = checkResolution(request.resolution, mode, request.model.id);
  const clips = request.clips.map((clip, index): VideoClipPlan => {
    const clipMode: VideoGenerateMode = index === 0 ? mode : 'image-to-video';
    return {
      prompt: clip.prompt,
      duration: checkDuration(clip.duration, clipMode, request.model.id, clip.field),
      mode: clipMode,
      model: clipMode === 'reference-to-video' ? baseModel : chosen,
    };
  });
  return { plannerModel, resolution, ...(aspectRatio ? { aspectRatio } : {}), clips };
}
