// Video's plain values (no zod), so the web UI can use them at run time: the
// modes, operations, storyboard bounds and the size limit. What a lane's models
// allow (durations, resolutions, aspect ratios, references) is theirs: GET
// /api/capabilities lists it per lane. video.ts re-exports these with its schemas.

/** How a clip is made, from its inputs. */
export const VIDEO_MODES = ['text-to-video', 'image-to-video', 'reference-to-video', 'video-to-video', 'extension'] as const;
export type VideoMode = (typeof VIDEO_MODES)[number];
/** What a video job does: generate (one clip or a storyboard), edit a video, extend one. */
export const VIDEO_OPERATIONS = ['generate', 'edit', 'extend'] as const;
export type VideoOperation = (typeof VIDEO_OPERATIONS)[number];
/** Largest video the studio downloads or imports (upstream edit sources are ≤ 50 MB; results are smaller). */
export const VIDEO_MAX_BYTES = 200 * 1024 * 1024;
/** Storyboard clips (ours). */
export const STORYBOARD_CLIPS = { min: 2, max: 8 } as const;

/** The mode a clip's reference count makes: 0 text, 1 image (its first frame), more references. */
export const videoModeOf = (references: number): VideoMode =>
  references === 0 ? 'text-to-video' : references === 1 ? 'image-to-video' : 'reference-to-video';

/** The ratios history names a video's shape by (the nearest to its pixels). */
export const VIDEO_SHAPE_RATIOS = ['16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16'] as const;
