import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { PlannedModel, VideoClipPlan, VideoMode, VideoOperation } from '../api/index.js';
import type { LaneEnv } from './env.js';
import type { LaneInputImage, UpstreamOperation } from './types.js';

// A lane's video capability (`LaneModule.video`), versioned and shaped like the
// AI SDK's provider models: the models it offers and their limits as data, the
// check of a request against the lane's own rules, and its long upstream work
// as steps (start, status, cancel) the video job kind (src/studio/video/) runs
// for any lane. The job owns everything generic: the lane choice, storyboards,
// edit and extend sources from history, joining, saving, events and resumes.

/** The modes a generation takes, detected from its reference count (0: text, 1: image, more: references). */
export type VideoGenerateMode = Extract<VideoMode, 'text-to-video' | 'image-to-video' | 'reference-to-video'>;

/** Allowed whole seconds: a range, or a closed list of values. */
export type VideoDurations = { readonly min: number; readonly max: number } | { readonly values: readonly number[] };

/** The limits of a clip in one mode (resolutions empty: the model takes none, the vendor picks). */
export interface VideoClipLimits {
  readonly durations: VideoDurations;
  readonly resolutions: readonly string[];
}

/**
 * What a video model takes, as data: GET /api/capabilities lists it, the Video view and `svc video`
 * offer it, and a lane without its own `plan` is checked against it (lanes/video-limits.ts).
 */
export interface VideoLimits extends VideoClipLimits {
  /** The generation modes it takes. */
  readonly modes: readonly VideoGenerateMode[];
  readonly defaultDuration: number;
  /** Absent: the first of `resolutions` (or none). */
  readonly defaultResolution?: string;
  /** Empty: the model takes no aspect ratio. */
  readonly aspectRatios: readonly string[];
  /** Reference images of reference-to-video (2 or more: fewer is text- or image-to-video). */
  readonly references?: { readonly min: number; readonly max: number };
  /** Where a mode's limits differ from the model's (alpha: reference-to-video's durations, 1080p). */
  readonly byMode?: Partial<Readonly<Record<VideoGenerateMode, Partial<VideoClipLimits>>>>;
  /** It edits a history MP4 (video-to-video) no longer than this. */
  readonly edit?: { readonly maxSourceSeconds: number };
  /** It extends a history MP4 by these seconds. */
  readonly extend?: { readonly durations: VideoDurations };
}

/** One video model of a lane. */
export interface VideoModelSpec {
  readonly id: string;
  /** Picker label. */
  readonly label?: string;
  readonly description: string;
  /** The id sent upstream when it differs from ours. */
  readonly upstreamId?: string;
  readonly limits: VideoLimits;
  /** This model's own parameters (the request's `options`), in place of the lane's (zeta: per-model parameters). */
  readonly options?: z.ZodObject;
}

/** A video request as the lane checks it: the generic fields, with the model already resolved. */
export interface VideoPlanRequest {
  readonly operation: VideoOperation;
  readonly model: VideoModelSpec;
  /** What the client asked for (an alias, or the default). */
  readonly requested: string;
  /** One clip, or a storyboard's clips in order (the shared direction already prefixed); `field` names the duration's field in refusals. */
  readonly clips: readonly { readonly prompt: string; readonly duration?: number; readonly field: string }[];
  readonly storyboard: boolean;
  /** Reference images given (counted, not yet decoded: a refusal costs no decoding). */
  readonly references: number;
  readonly resolution?: string;
  readonly aspectRatio?: string;
  readonly plannerModel?: string;
  /** The request's `options` (unchecked: the plan checks them against the model's or the lane's schema). */
  readonly options: Readonly<Record<string, unknown>>;
  /** Edit: the history MP4 and its seconds (extend checks its duration before the source is fetched). */
  readonly source?: { readonly filename: string; readonly seconds: number };
}

/** What the plan answers: each clip's prompt, seconds, mode and model, and the shared settings. */
export interface VideoPlan {
  readonly clips: readonly VideoClipPlan[];
  readonly resolution?: string;
  readonly aspectRatio?: string;
  readonly plannerModel?: string;
  /** The checked options, as the steps receive them. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/** The source of an edit or an extension: a generated MP4 of history, read on demand. */
export interface VideoSource {
  readonly filename: string;
  readonly seconds: () => Promise<number>;
  readonly mp4: () => Promise<Buffer>;
  readonly lastFrame: () => Promise<LaneInputImage>;
}

/** One clip as the steps receive it. */
export interface VideoClipRequest {
  readonly requestId: string;
  readonly operation: VideoOperation;
  /** 0-based, of `clips`. */
  readonly index: number;
  readonly clips: number;
  readonly prompt: string;
  readonly duration: number;
  readonly mode: VideoMode;
  readonly model: PlannedModel;
  readonly resolution?: string;
  readonly aspectRatio?: string;
  readonly plannerModel?: string;
  readonly options: Readonly<Record<string, unknown>>;
  /**
   * image-to-video: the first frame (a storyboard's later clip: the last frame of the clip before);
   * reference-to-video: every reference. Text-to-video, edit, extend: none. Given to `start` only
   * (status and timeout get none: the operation holds what the vendor needs).
   */
  readonly images: readonly LaneInputImage[];
  /** Edit and extend. */
  readonly source?: VideoSource;
}

/** The running video job as the lane sees it: narrow, like `LaneJob`. */
export interface VideoJob {
  /** Aborted when the job is cancelled; the lane passes it to every upstream call. */
  readonly signal: AbortSignal;
  /** When the job's time is up (ms since the epoch), kept across restarts. */
  readonly deadline: number;
  /** The clip is being sent upstream (the job's phase `rendering`). */
  rendering(): void;
  /** Work worth showing besides the polls (zeta: its uploads, `fraction` of them); goes out as a `progress` event's `upstreamState` (the clip's own fraction moves with the polls only). */
  progress(update: { readonly state: string; readonly fraction?: number }): void;
  /**
   * The checkpoint of a lane whose start does unbilled work first (`reachesUpstreamAtStart: false`):
   * its first billable call is about to be sent. Before it a crash runs the clip again; after it,
   * only a recorded operation lets it go on.
   */
  sending(): Promise<void>;
}

/** A finished clip: its MP4 bytes, or a link the job downloads (https on a public address or `ownOrigin`, no redirect, bounded, sniffed as MP4). */
export type VideoOutput =
  { readonly bytes: Buffer } | { readonly url: string; readonly ownOrigin?: string; readonly failureCode?: ErrorCode };

/** The answer of one status call. */
export type VideoStatus =
  | { readonly done: false; readonly state: string; readonly fraction?: number; readonly retryAfterMs?: number }
  | {
      readonly done: true;
      readonly state?: string;
      readonly output: VideoOutput;
      readonly costUsd?: number;
      readonly settings?: Readonly<Record<string, unknown>>;
    };

/**
 * A lane's video models and how they run. `models`, `defaultModel` and `aliases` are its catalog
 * (defineLane lists them beside the image models); `limits` are data; `plan` applies the lane's own
 * rules (absent: the declared limits are checked, lanes/video-limits.ts); `start` submits one clip
 * and answers the operation the job stores before anything else happens; `status` is one poll (done:
 * the MP4, or its link); `cancel` reaches the vendor where it has one. The job schedules the polls
 * (`pollIntervalsMs`, Retry-After, the stored deadline), so a restarted studio continues every clip
 * from its operation.
 */
export interface VideoModel {
  readonly specificationVersion: 'v1';
  readonly models: readonly VideoModelSpec[];
  readonly defaultModel: string;
  /** Old ids still accepted, and what they mean now. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** The lane's own options (the request's `options`) for models without their own schema. */
  readonly options?: z.ZodObject;
  /** Checks before a job is accepted (credential usable, lock); throws a ServiceError. Also how the lane choice tells a ready lane. */
  preflight?(ctx: LaneEnv): void;
  /** The lane's rules over a request; refusals in the lane's codes, naming the field and the allowed values. */
  plan?(ctx: LaneEnv, request: VideoPlanRequest): VideoPlan;
  /** Whether `start` sends a billable call at once (else it calls `job.sending()` itself). */
  readonly reachesUpstreamAtStart: boolean;
  /** Waits between polls, the last one repeating. */
  pollIntervalsMs(ctx: LaneEnv): readonly number[];
  /** One clip's time from its start to its last poll (the job adds its saving time). */
  budgetMs(ctx: LaneEnv): number;
  readonly start: (
    ctx: LaneEnv,
    clip: VideoClipRequest,
    job: VideoJob,
  ) => Promise<{ readonly operation: UpstreamOperation; readonly id: string; readonly state?: string; readonly revisedPrompt?: string }>;
  readonly status: (ctx: LaneEnv, clip: VideoClipRequest, operation: UpstreamOperation, job: VideoJob) => Promise<VideoStatus>;
  /** Asks the vendor to stop; answers whether it confirmed. */
  cancel?(ctx: LaneEnv, operation: UpstreamOperation): Promise<boolean>;
  /** The error of a clip whose deadline passed. */
  timeout(clip: VideoClipRequest, operation: UpstreamOperation | null): Error;
  /** POST /api/video/analyze: describes a frame with the lane's planner (absent: the lane does not analyze). */
  readonly frames?: VideoFrameDescriber;
}

/** How a lane describes a video frame (POST /api/video/analyze). */
export interface VideoFrameDescriber {
  /** The planner model that describes (the asked one, checked, else the lane's default). */
  model(ctx: LaneEnv, asked: string | undefined): string;
  describe(
    ctx: LaneEnv,
    model: string,
    frame: LaneInputImage,
    which: 'first' | 'last',
    signal: AbortSignal,
  ): Promise<{ readonly text: string; readonly usage: { readonly inputTokens: number; readonly outputTokens: number } }>;
}
