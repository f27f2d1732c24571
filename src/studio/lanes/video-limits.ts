import type { z } from 'zod';
import { ServiceError } from '../errors.js';
import { issueMessage } from '../../common/issue-message.js';
import { videoModeOf as modeOfCount, type VideoMode } from '../api/index.js';
import type {
  VideoClipLimits,
  VideoDurations,
  VideoGenerateMode,
  VideoLimits,
  VideoModelSpec,
  VideoPlan,
  VideoPlanRequest,
} from './video-model.js';

// A video request checked against what a model declares (its VideoLimits): the
// plan of a lane without rules of its own, and the helpers a lane's own plan
// may build on. Each refusal names its field and the allowed values.

/** 0 references: text-to-video; 1: image-to-video; more: reference-to-video. */
export const videoModeOf = (references: number): VideoGenerateMode => modeOfCount(references) as VideoGenerateMode;

/** A mode's limits: the model's, with the mode's own where it has them. */
export function clipLimits(limits: VideoLimits, mode: VideoMode): VideoClipLimits {
  if (mode === 'extension' && limits.extend) return { durations: limits.extend.durations, resolutions: [] };
  const own = mode === 'text-to-video' || mode === 'image-to-video' || mode === 'reference-to-video' ? limits.byMode?.[mode] : undefined;
  return { durations: own?.durations ?? limits.durations, resolutions: own?.resolutions ?? limits.resolutions };
}

export const durationFits = (durations: VideoDurations, seconds: number): boolean =>
  Number.isInteger(seconds) &&
  ('values' in durations ? durations.values.includes(seconds) : seconds >= durations.min && seconds <= durations.max);

export const describeDurations = (durations: VideoDurations): string =>
  'values' in durations ? durations.values.join(', ') : `${durations.min} to ${durations.max}`;

/** The longest clip of a mode (a picker's range). */
export const maxSeconds = (durations: VideoDurations): number => ('values' in durations ? Math.max(...durations.values) : durations.max);

function checkDuration(model: VideoModelSpec, mode: VideoMode, value: number | undefined, field: string): number {
  const seconds = value ?? model.limits.defaultDuration;
  const { durations } = clipLimits(model.limits, mode);
  if (!durationFits(durations, seconds)) {
    throw new ServiceError(
      'VIDEO_DURATION_OUT_OF_RANGE',
      `duration must be whole seconds of ${describeDurations(durations)} for ${mode} on ${model.id}; got ${seconds}.`,
      {
        details: {
          field,
          ...('values' in durations ? { valid: durations.values } : { min: durations.min, max: durations.max }),
          got: seconds,
          mode,
          model: model.id,
        },
      },
    );
  }
  return seconds;
}

function checkMode(model: VideoModelSpec, mode: VideoGenerateMode, field: string): void {
  if (!model.limits.modes.includes(mode)) {
    throw new ServiceError('VIDEO_MODE_UNSUPPORTED', `${model.id} does not do ${mode} (it does: ${model.limits.modes.join(', ')}).`, {
      details: { field, mode, model: model.id, valid: model.limits.modes },
    });
  }
}

/** The request's options checked by the model's schema, else the lane's (none: options are refused). */
export function checkVideoOptions(
  model: VideoModelSpec,
  laneOptions: z.ZodObject | undefined,
  options: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const schema = model.options ?? laneOptions;
  if (!schema) {
    if (Object.keys(options).length > 0)
      throw new ServiceError('BAD_REQUEST', `${model.id} takes no options.`, {
        details: { field: 'options', model: model.id, unknown: Object.keys(options) },
      });
    return {};
  }
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const issue = parsed.error.issues[0];
  const field = ['options', ...issue.path.map(String)].join('.');
  throw new ServiceError(
    'BAD_REQUEST',
    `${field}: ${issueMessage(issue, options)} (${model.id} takes: ${Object.keys(schema.shape).join(', ') || 'none'}).`,
    {
      details: { field, model: model.id, valid: Object.keys(schema.shape) },
    },
  );
}

/** The plan of a request by the model's declared limits. */
export function planByLimits(request: VideoPlanRequest, laneOptions?: z.ZodObject): VideoPlan {
  const { model, limits } = { model: request.model, limits: request.model.limits };
  const planned = { requested: request.requested, id: model.id, upstreamId: model.upstreamId ?? model.id };
  const options = checkVideoOptions(model, laneOptions, request.options);
  const operationRefused = (operation: string) =>
    new ServiceError('VIDEO_OPERATION_UNSUPPORTED', `${model.id} does not ${operation} videos.`, {
      details: { field: 'model', model: model.id, operation: request.operation },
    });
  if (request.operation === 'edit') {
    if (!limits.edit) throw operationRefused('edit');
    const seconds = request.source?.seconds ?? 0;
    if (seconds > limits.edit.maxSourceSeconds) {
      throw new ServiceError(
        'VIDEO_SOURCE_TOO_LONG',
        `An edit on ${model.id} takes a source of at most ${limits.edit.maxSourceSeconds} s; ${request.source?.filename ?? 'the source'} lasts ${seconds} s.`,
        { details: { field: 'video', max: limits.edit.maxSourceSeconds, got: seconds } },
      );
    }
    return {
      clips: [{ prompt: request.clips[0].prompt, duration: Math.max(1, Math.round(seconds)), mode: 'video-to-video', model: planned }],
      options,
    };
  }
  if (request.operation === 'extend') {
    if (!limits.extend) throw operationRefused('extend');
    const clip = request.clips[0];
    return {
      clips: [
        { prompt: clip.prompt, duration: checkDuration(model, 'extension', clip.duration, clip.field), mode: 'extension', model: planned },
      ],
      options,
    };
  }
  const mode = videoModeOf(request.references);
  if (mode === 'reference-to-video' && limits.references && request.references > limits.references.max) {
    throw new ServiceError(
      'VIDEO_REFERENCES_TOO_MANY',
      `${model.id} takes at most ${limits.references.max} reference images; got ${request.references}.`,
      {
        details: { field: 'references', min: limits.references.min, max: limits.references.max, got: request.references },
      },
    );
  }
  checkMode(model, mode, 'references');
  // A storyboard's later clips start from the last frame of the clip before.
  if (request.clips.length > 1) checkMode(model, 'image-to-video', 'storyboard');
  let aspectRatio: string | undefined;
  if (request.aspectRatio !== undefined) {
    if (!limits.aspectRatios.includes(request.aspectRatio)) {
      throw new ServiceError(
        'VIDEO_ASPECT_RATIO_UNSUPPORTED',
        `aspectRatio must be one of ${limits.aspectRatios.join(', ') || '(none: the model takes no aspect ratio)'} on ${model.id}; got "${request.aspectRatio}".`,
        {
          details: { field: 'aspectRatio', valid: limits.aspectRatios, got: request.aspectRatio, model: model.id },
        },
      );
    }
    aspectRatio = request.aspectRatio;
  }
  const { resolutions } = clipLimits(limits, mode);
  const resolution =
    request.resolution ??
    (limits.defaultResolution && resolutions.includes(limits.defaultResolution) ? limits.defaultResolution : resolutions[0]);
  if (resolution !== undefined && !resolutions.includes(resolution)) {
    throw new ServiceError(
      'VIDEO_RESOLUTION_UNSUPPORTED',
      `resolution must be one of ${resolutions.join(', ') || '(none: the model picks)'} for ${mode} on ${model.id}; got "${resolution}".`,
      {
        details: { field: 'resolution', valid: resolutions, got: resolution, mode, model: model.id },
      },
    );
  }
  const clips = request.clips.map((clip, index) => {
    const clipMode: VideoGenerateMode = index === 0 ? mode : 'image-to-video';
    return { prompt: clip.prompt, duration: checkDuration(model, clipMode, clip.duration, clip.field), mode: clipMode, model: planned };
  });
  return { clips, ...(resolution !== undefined ? { resolution } : {}), ...(aspectRatio ? { aspectRatio } : {}), options };
}
