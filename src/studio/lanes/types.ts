import type { ProviderLaneId } from '../catalog/lanes.js';
import type { ImageFormat, Moderation, Quality, ReasoningEffort } from '../catalog/controls.js';
import type { ResolvedModel } from '../catalog/models.js';
import type { StudioContext } from '../context.js';

/** What /api/providers says of a lane. */
export type LaneState = 'ready' | 'needs_credential' | 'needs_binary' | 'unreachable' | 'unavailable';

export interface LaneStatus {
  readonly state: LaneState;
  readonly reason: string;
}

/** The steps of an image job, in order; every job publishes them as `phase` events. */
export const JOB_PHASES = ['queued', 'planning', 'rendering', 'saving'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

/** An input image as a lane needs it: bytes and their media type (references, the edited image, a mask). */
export interface LaneInputImage {
  readonly bytes: Buffer;
  readonly mime: string;
}

/** One image generation or edit, already validated and resolved by the route. */
export interface LaneImageRequest {
  readonly requestId: string;
  readonly prompt: string;
  /** The model after aliases, the lane default and compatibility mappings. */
  readonly model: ResolvedModel;
  readonly format: ImageFormat;
  readonly quality?: Quality;
  readonly size?: string;
  readonly moderation?: Moderation;
  readonly reasoning?: ReasoningEffort;
  readonly negativePrompt?: string;
  readonly references: readonly LaneInputImage[];
  /** Edits only: the image to change, and optionally a mask (transparent = editable). */
  readonly image?: LaneInputImage;
  readonly mask?: LaneInputImage;
}

/** The running job as a lane sees it: a cancel signal and two ways to report progress. */
export interface LaneJob {
  /** Aborted when the job is cancelled (DELETE /api/inflight/:id, or the client went away). */
  readonly signal: AbortSignal;
  phase(phase: Exclude<JobPhase, 'queued' | 'saving'>): void;
  /** A low-quality intermediate render; goes to listeners only, never to history. */
  partial(image: { index: number; b64: string; format: ImageFormat }): void;
}

export interface LaneImage {
  readonly bytes: Buffer;
  readonly format: ImageFormat;
}

export interface LaneUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
}

export interface LaneImageResult {
  readonly images: readonly LaneImage[];
  readonly revisedPrompt?: string;
  readonly usage?: LaneUsage;
  /** The settings the upstream call actually used (defaults filled in); stored with the asset. */
  readonly settings: Readonly<Record<string, unknown>>;
}

/**
 * One upstream lane. Each lane folder exports one object implementing this;
 * `lanes/index.ts` lists them. The route does validation, model resolution,
 * reference loading and saving; a lane only turns a request into images.
 */
export interface LaneAdapter {
  readonly id: ProviderLaneId;
  /** A cheap readiness check beyond the catalog's credential rule (e.g. a session file that is unreadable). */
  probe?(ctx: StudioContext): Promise<LaneStatus | undefined>;
  /** The model used when a request names none (default: the catalog's DEFAULT_MODELS). */
  defaultModel?(ctx: StudioContext): string;
  /** Checks that run before a job is accepted (credential present, ...); throws a ServiceError. */
  preflight?(ctx: StudioContext): void;
  generate?(ctx: StudioContext, request: LaneImageRequest, job: LaneJob): Promise<LaneImageResult>;
  /** Absent: the lane cannot edit (LANE_UNSUPPORTED). `request.image` is set. */
  edit?(ctx: StudioContext, request: LaneImageRequest, job: LaneJob): Promise<LaneImageResult>;
}
