import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { imageInput } from './requests.js';
import { assetRecord, generationTimings } from './results.js';
import { inputDescriptor, plannedModel } from './jobs-base.js';
import { STORYBOARD_CLIPS, VIDEO_MODES, VIDEO_OPERATIONS } from './video-values.js';
import { API_LIMITS, JOB_PRIORITY, LANE_IDS, PROVIDER_IDS, REQUEST_ID_PATTERN } from './values.js';

// Video (spec: "Video", the Video request, the video job states, Events 4).
// The spec names `plannerModel`, `storyboard` and `model`; the names of the
// other fields are ours, declared here (docs/API.md "Video"):
//   duration     whole seconds
//   resolution   e.g. 480p | 720p | 1080p
//   aspectRatio  e.g. 16:9 (omitted: the lane's default, or the image's own)
//   references   input images, the same item shapes as a generation's; 0 → text-to-video,
//                1 → image-to-video, more → reference-to-video
//   options      the model's own parameters (zeta's), checked by its schema
// What each lane's models allow is theirs (GET /api/capabilities `video`; the
// alpha lanes' are the spec's rules), checked when the job is planned (so a
// refusal names its rule and the allowed values with a video code), not here.

export * from './video-values.js';

/** What every job-creating video request may say about its delivery (as every job route). */
const deliveryFields = lazy(() => ({
  requestId: z.string().regex(REQUEST_ID_PATTERN).optional(),
  async: z.boolean().optional(),
  cancelOnDisconnect: z.boolean().optional(),
  priority: z.number().int().min(JOB_PRIORITY.min).max(JOB_PRIORITY.max).optional(),
}));

const laneFields = lazy(() => ({
  /** A lane with a video model (default: the lane prefix of `model`, else the saved video target's lane, else alpha when its session exists, else alpha-api). */
  provider: z.enum(PROVIDER_IDS).optional(),
  /** A video model of the lane, or `<lane>/<model>`. Default: the saved video target's model, else the lane's default (alpha: alpha-video-1.5). */
  model: z.string().min(1).max(200).optional(),
  /** Lanes with a planner (alpha): default SVC_ALPHA_PLANNER_MODEL, the saved planner, else alpha-4.3. */
  plannerModel: z.string().min(1).max(200).optional(),
  /** The model's own parameters (its schema in GET /api/capabilities `video.models[].options`). */
  options: z.record(z.string(), z.unknown()).optional(),
}));

const prompt = lazy(() => z.string().trim().min(1).max(API_LIMITS.promptMaxChars));

/**
 * POST /api/video/generate. `storyboard` (ours in detail): `{ clips: [{ prompt, duration? }, ...] }`,
 * 2–8 clips made one after another, each after the first starting from the last frame of the one
 * before; the top-level `prompt` (optional then) is the shared direction prefixed to every clip's,
 * `references` go to the first clip, `resolution`, `aspectRatio`, `model` apply to all.
 */
export const videoGenerateRequest = lazy(() =>
  z
    .object({
      ...laneFields,
      ...deliveryFields,
      prompt: prompt.optional(),
      duration: z.number().optional(),
      resolution: z.string().max(20).optional(),
      aspectRatio: z.string().max(20).optional(),
      references: z.array(imageInput).optional(),
      storyboard: z.unknown().optional(),
    })
    .strict(),
);
export type VideoGenerateRequest = z.infer<typeof videoGenerateRequest>;

/** A storyboard's clip as the client writes it (checked with STORYBOARD_INVALID). */
export const storyboardClip = lazy(() => z.object({ prompt, duration: z.number().optional() }).strict());
export const storyboardShape = lazy(() =>
  z.object({ clips: z.array(storyboardClip).min(STORYBOARD_CLIPS.min).max(STORYBOARD_CLIPS.max) }).strict(),
);

/** POST /api/video/edit: video-to-video on a generated MP4 of history (`video`: its filename). */
export const videoEditRequest = lazy(() =>
  z.object({ ...laneFields, ...deliveryFields, prompt, video: z.string().min(1).max(2048) }).strict(),
);
export type VideoEditRequest = z.infer<typeof videoEditRequest>;

/** POST /api/video/extend: a generated MP4 (`video`: its filename) or a remote one (`url`: https), and the added seconds. */
export const videoExtendRequest = lazy(() =>
  z
    .object({
      ...laneFields,
      ...deliveryFields,
      prompt,
      video: z.string().min(1).max(2048).optional(),
      url: z.string().min(1).max(2048).optional(),
      duration: z.number().optional(),
    })
    .strict()
    .refine((body) => (body.video === undefined) !== (body.url === undefined), {
      message: 'give either video (a history file name) or url (an https MP4), exactly one',
      path: ['video'],
    }),
);
export type VideoExtendRequest = z.infer<typeof videoExtendRequest>;

/** GET /api/video/frame: `at` is `first` (default), `last`, or a time in seconds. */
export const videoFrameQuery = lazy(() => z.object({ filename: z.string().min(1).max(200), at: z.string().max(20).optional() }).strict());

/** POST /api/video/analyze: the first and last frames of a generated MP4 described by the planner model. */
export const videoAnalyzeRequest = lazy(() =>
  z
    .object({
      video: z.string().min(1).max(2048).optional(),
      url: z.string().max(2048).optional(),
      provider: z.enum(PROVIDER_IDS).optional(),
      plannerModel: z.string().min(1).max(200).optional(),
    })
    .strict(),
);
export type VideoAnalyzeRequest = z.infer<typeof videoAnalyzeRequest>;

export const videoAnalysis = lazy(() =>
  z.object({
    filename: z.string(),
    provider: z.string(),
    plannerModel: z.string(),
    first: z.object({ atSeconds: z.number(), description: z.string() }),
    last: z.object({ atSeconds: z.number(), description: z.string() }),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }),
  }),
);
export type VideoAnalysis = z.infer<typeof videoAnalysis>;

/** One clip as a video job stores it: its prompt, seconds, mode and model resolved at planning. */
export const videoClipPlan = lazy(() =>
  z.object({
    prompt: z.string(),
    duration: z.number().int(),
    mode: z.enum(VIDEO_MODES),
    /** `requested` what the client asked (or the default), `id` what runs (the base model for references, edits, extensions). */
    model: plannedModel,
  }),
);
export type VideoClipPlan = z.infer<typeof videoClipPlan>;

/** The stored request of a video job. */
export const videoJobRequest = lazy(() =>
  z.object({
    operation: z.enum(VIDEO_OPERATIONS),
    lane: z.enum(LANE_IDS),
    /** Lanes with a planner. */
    plannerModel: z.string().optional(),
    resolution: z.string().optional(),
    aspectRatio: z.string().optional(),
    /** The model's own parameters, checked when planned. */
    options: z.record(z.string(), z.unknown()).optional(),
    /** One clip, or a storyboard's clips in order. */
    clips: z.array(videoClipPlan).min(1),
    storyboard: z.boolean(),
    inputs: z.object({
      /** The first clip's images (image- or reference-to-video). */
      references: z.array(inputDescriptor),
      /** Edit and extend: the history MP4 they start from. */
      source: z.string().optional(),
    }),
  }),
);
export type VideoJobRequest = z.infer<typeof videoJobRequest>;

/** A video job's result (the sync answer and `done.result`). */
export const videoResult = lazy(() =>
  z.object({
    requestId: z.string(),
    provider: z.string(),
    operation: z.enum(VIDEO_OPERATIONS),
    /** The model that ran (of the last clip), and what was asked for when it differs. */
    model: z.string(),
    requestedModel: z.string().optional(),
    mode: z.enum(VIDEO_MODES),
    /** The video: the clip, the edited or extended video, or a storyboard's joined video. */
    video: assetRecord,
    /** A storyboard's clips, in order (each saved to history too). */
    clips: z.array(assetRecord).optional(),
    /** The planner's final prompt of each clip. */
    revisedPrompts: z.array(z.string()),
    settings: z.record(z.string(), z.unknown()),
    timings: generationTimings,
  }),
);
export type VideoResult = z.infer<typeof videoResult>;
