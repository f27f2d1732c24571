// The alpha vendor's controls (spec: Alpha pipeline, Video).

export const ALPHA_PLANNER_VERSIONS = ['alpha-4.3', 'alpha-4.5', 'alpha-4.6'] as const;
/** Default planner; `SVC_ALPHA_PLANNER_MODEL` or the settings override it. */
export const DEFAULT_ALPHA_PLANNER = 'alpha-4.3';
/** The image API's resolution values (lowercase on the wire). */
export const ALPHA_RESOLUTIONS = ['1k', '2k'] as const;

export const VIDEO_RESOLUTIONS = ['480p', '720p', '1080p'] as const;
export const VIDEO_DURATION_SECONDS = { min: 1, max: 15 } as const;
/** References of a reference-to-video job (fewer is text- or image-to-video). */
export const REFERENCE_TO_VIDEO_REFERENCES = { min: 2, max: 14 } as const;
/** Longest reference-to-video clip per model. */
export const REFERENCE_TO_VIDEO_MAX_SECONDS = { 'alpha-video-1.5': 15, 'alpha-video': 10 } as const;
