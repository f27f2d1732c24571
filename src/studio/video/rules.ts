import { ServiceError } from '../errors.js';
import {
  REFERENCE_TO_VIDEO_MAX_SECONDS,
  REFERENCE_TO_VIDEO_REFERENCES,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DEFAULT_RESOLUTION,
  VIDEO_DEFAULT_SECONDS,
  VIDEO_DURATION_SECONDS,
  VIDEO_RESOLUTIONS,
  referenceMaxSeconds,
  videoMaxSeconds,
  videoModeOf,
  videoResolutionsFor,
  type VideoMode,
} from '../api/index.js';
import { VIDEO_1080P_MODELS } from '../lanes/alpha/controls.js';

// The spec's video rules (Video 2–4, Limits), each refusal naming its rule
// and the allowed values: the mode from the reference count, the duration
// (1–15 s; reference-to-video 15 s on alpha-video-1.5, 10 s on alpha-video),
// the resolution (1080p only for alpha-video-1.5 text-to-video and one-image
// image-to-video), the aspect ratio.

export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];
export type VideoAspectRatio = (typeof VIDEO_ASPECT_RATIOS)[number];

/** 0 references: text-to-video; 1: image-to-video; 2–14: reference-to-video. */
export function modeOf(references: number): VideoMode {
  if (references > REFERENCE_TO_VIDEO_REFERENCES.max) {
    throw new ServiceError('VIDEO_REFERENCES_TOO_MANY', `Reference-to-video takes ${REFERENCE_TO_VIDEO_REFERENCES.min} to ${REFERENCE_TO_VIDEO_REFERENCES.max} reference images; got ${references}.`, {
      details: { field: 'references', min: REFERENCE_TO_VIDEO_REFERENCES.min, max: REFERENCE_TO_VIDEO_REFERENCES.max, got: references },
    });
  }
  return videoModeOf(references);
}

/** The clip's whole seconds, checked against the mode's and the model's limits. */
export function checkDuration(value: number | undefined, mode: VideoMode, requestedModel: string, field = 'duration'): number {
  const seconds = value ?? VIDEO_DEFAULT_SECONDS;
  const referenceMax = referenceMaxSeconds(mode, requestedModel);
  const max = videoMaxSeconds(mode, requestedModel);
  if (!Number.isInteger(seconds) || seconds < VIDEO_DURATION_SECONDS.min || seconds > max) {
    const rule = referenceMax !== undefined ? `reference-to-video on ${requestedModel} lasts at most ${referenceMax} s` : `a video lasts ${VIDEO_DURATION_SECONDS.min} to ${VIDEO_DURATION_SECONDS.max} s`;
    throw new ServiceError('VIDEO_DURATION_OUT_OF_RANGE', `duration must be a whole number of seconds from ${VIDEO_DURATION_SECONDS.min} to ${max} (${rule}); got ${seconds}.`, {
      details: { field, min: VIDEO_DURATION_SECONDS.min, max, got: seconds, mode, model: requestedModel, referenceToVideoMaxSeconds: REFERENCE_TO_VIDEO_MAX_SECONDS },
    });
  }
  return seconds;
}

/** The resolution (default 480p); 1080p only where the spec allows it. */
export function checkResolution(value: string | undefined, mode: VideoMode, requestedModel: string): VideoResolution {
  const resolution = value ?? VIDEO_DEFAULT_RESOLUTION;
  if (!(VIDEO_RESOLUTIONS as readonly string[]).includes(resolution)) {
    throw new ServiceError('VIDEO_RESOLUTION_UNSUPPORTED', `resolution must be one of ${VIDEO_RESOLUTIONS.join(', ')}; got "${resolution}".`, { details: { field: 'resolution', valid: VIDEO_RESOLUTIONS, got: resolution } });
  }
  const valid = videoResolutionsFor(mode, requestedModel);
  if (!(valid as string[]).includes(resolution)) {
    throw new ServiceError('VIDEO_RESOLUTION_UNSUPPORTED', `1080p is available only on ${VIDEO_1080P_MODELS.join(', ')} for text-to-video and image-to-video with one image; ${mode} on ${requestedModel} takes ${valid.join(', ')}.`, {
      details: { field: 'resolution', valid, got: resolution, mode, model: requestedModel, rule: '1080p: alpha-video-1.5 text-to-video or one-image image-to-video only' },
    });
  }
  return resolution as VideoResolution;
}

export function checkAspectRatio(value: string | undefined): VideoAspectRatio | undefined {
  if (value === undefined) return undefined;
  if (!(VIDEO_ASPECT_RATIOS as readonly string[]).includes(value)) {
    throw new ServiceError('VIDEO_ASPECT_RATIO_UNSUPPORTED', `aspectRatio must be one of ${VIDEO_ASPECT_RATIOS.join(', ')}; got "${value}".`, { details: { field: 'aspectRatio', valid: VIDEO_ASPECT_RATIOS, got: value } });
  }
  return value as VideoAspectRatio;
}
