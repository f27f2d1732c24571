// Video's plain values (no zod), so the web UI can use them at run time: the
// modes, operations, defaults and storyboard bounds, and the vendor's video
// controls (lanes/alpha/controls.ts). video.ts re-exports these with its schemas.

import { REFERENCE_TO_VIDEO_MAX_SECONDS, REFERENCE_TO_VIDEO_REFERENCES, VIDEO_1080P_MODELS, VIDEO_DURATION_SECONDS, VIDEO_RESOLUTIONS } from '../lanes/alpha/controls.js';

export {
  REFERENCE_TO_VIDEO_MAX_SECONDS,
  REFERENCE_TO_VIDEO_REFERENCES,
  VIDEO_1080P_MODELS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_BASE_MODEL,
  VIDEO_DURATION_SECONDS,
  VIDEO_RESOLUTIONS,
} from '../lanes/alpha/controls.js';

/** How a clip is made, from its inputs. */
export const VIDEO_MODES = ['text-to-video', 'image-to-video', 'reference-to-video', 'video-to-video', 'extension'] as const;
export type VideoMode = (typeof VIDEO_MODES)[number];
/** What a video job does: generate (one clip or a storyboard), edit a video, extend one. */
export const VIDEO_OPERATIONS = ['generate', 'edit', 'extend'] as const;
export type VideoOperation = (typeof VIDEO_OPERATIONS)[number];
/** The default duration when none is given (the contract's clients use 6 s). */
export const VIDEO_DEFAULT_SECONDS = 6;
export const VIDEO_DEFAULT_RESOLUTION = '480p';
/** Longest source a video-to-video edit takes (contract §5: about 8.7 s). */
export const EDIT_SOURCE_MAX_SECONDS = 8.7;
/** Storyboard clips (ours). */
export const STORYBOARD_CLIPS = { min: 2, max: 8 } as const;

/** The mode a clip's reference count makes (more than the maximum is refused by the server: VIDEO_REFERENCES_TOO_MANY). */
export const videoModeOf = (references: number): VideoMode => (references === 0 ? 'text-to-video' : references === 1 ? 'image-to-video' : 'reference-to-video');

/** The reference-to-video maximum of a requested model, when the mode has one. */
export const referenceMaxSeconds = (mode: VideoMode, requestedModel: string): number | undefined =>
  mode === 'reference-to-video' ? REFERENCE_TO_VIDEO_MAX_SECONDS[requestedModel as keyof typeof REFERENCE_TO_VIDEO_MAX_SECONDS] : undefined;

/** The longest clip a mode and requested model allow. */
export const videoMaxSeconds = (mode: VideoMode, requestedModel: string): number => referenceMaxSeconds(mode, requestedModel) ?? VIDEO_DURATION_SECONDS.max;

/** The resolutions a mode and requested model allow (1080p: the 1080p models' text-to-video and one-image image-to-video). */
export function videoResolutionsFor(mode: VideoMode, requestedModel: string): (typeof VIDEO_RESOLUTIONS)[number][] {
  const fullHd = (VIDEO_1080P_MODELS as readonly string[]).includes(requestedModel) && (mode === 'text-to-video' || mode === 'image-to-video');
  return VIDEO_RESOLUTIONS.filter((resolution) => resolution !== '1080p' || fullHd);
}

/** The reference bounds, for a client that offers "add a reference". */
export const VIDEO_REFERENCES_MAX = REFERENCE_TO_VIDEO_REFERENCES.max;
