// Values of the studio's HTTP API, declared once. The server validates with
// them, `GET /api/capabilities` lists them, the CLI and the web UI import them.
// Pure data: importing this module loads nothing of the server.

/** The `provider` values (spec: Lanes). `auto` is a routing mode, the rest are lanes. */
export const PROVIDER_IDS = [
  'auto',
  'oauth',
  'api',
  'alpha',
  'alpha-api',
  'beta-api',
  'cligen',
  'gamma',
  'delta',
  'epsilon',
  'flow',
  'zeta',
  'eta',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
/** A lane: every provider value but the `auto` routing mode. */
export type LaneId = Exclude<ProviderId, 'auto'>;
export const LANE_IDS = PROVIDER_IDS.filter((id): id is LaneId => id !== 'auto');
export const isProviderId = (value: unknown): value is ProviderId =>
  typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value);
export const isLaneId = (value: unknown): value is LaneId => isProviderId(value) && value !== 'auto';

export const QUALITIES = ['low', 'medium', 'high'] as const;
export const MODERATIONS = ['auto', 'low'] as const;
export const REASONING_EFFORTS = ['none', 'low', 'medium', 'high', 'xhigh'] as const;
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;

export type Quality = (typeof QUALITIES)[number];
export type Moderation = (typeof MODERATIONS)[number];
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
/** What history holds: raster images, vector images traced from them, and videos (MP4). */
export const ASSET_FORMATS = [...IMAGE_FORMATS, 'svg', 'mp4'] as const;
export type AssetFormat = (typeof ASSET_FORMATS)[number];

/**
 * The request controls every lane may or may not take; a lane module lists
 * the ones it does (a control sent to a lane without it is refused, never
 * dropped). Lane-specific controls go in the request's `options` instead.
 */
/** What a lane can do (GET /api/capabilities `capabilities`): generate images, edit them, make video, answer text. */
export const LANE_CAPABILITIES = ['image', 'edit', 'video', 'text'] as const;
export type LaneCapability = (typeof LANE_CAPABILITIES)[number];

export const COMMON_CONTROLS = ['quality', 'size', 'format', 'moderation', 'reasoning', 'negativePrompt'] as const;
export type CommonControl = (typeof COMMON_CONTROLS)[number];

/** Sizes offered by pickers; any `<width>x<height>` within the size rule is accepted. */
export const COMMON_SIZES = ['1024x1024', '1024x1536', '1536x1024', '2048x2048', '1920x1088', '1088x1920'] as const;

/** The free-size rule of the hosted image tool (sides divisible by 16, ratio ≤ 3:1, ≤ 3840x2160). */
export const SIZE_RULE = { multipleOf: 16, maxRatio: 3, maxLongSide: 3840, maxShortSide: 2160, minSide: 256 } as const;

/** Parses `<width>x<height>`; undefined when the text is not of that form. */
export function parseSize(size: string): { width: number; height: number } | undefined {
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!match) return undefined;
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** Why a size breaks SIZE_RULE, or undefined when it is fine. */
export function sizeProblem(size: string): string | undefined {
  const parsed = parseSize(size);
  if (!parsed) return `size must look like 1024x1024, got "${size}"`;
  const { width, height } = parsed;
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (width % SIZE_RULE.multipleOf || height % SIZE_RULE.multipleOf) return `both sides must be multiples of ${SIZE_RULE.multipleOf}`;
  if (short < SIZE_RULE.minSide) return `each side must be at least ${SIZE_RULE.minSide}`;
  if (long > SIZE_RULE.maxLongSide || short > SIZE_RULE.maxShortSide) return `at most ${SIZE_RULE.maxLongSide}x${SIZE_RULE.maxShortSide}`;
  if (long / short > SIZE_RULE.maxRatio) return `the aspect ratio must be at most ${SIZE_RULE.maxRatio}:1`;
  return undefined;
}

/** Printable ASCII without spaces: a requestId travels in headers and URLs (`/api/jobs/:id`). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:~-]{1,128}$/;

/** The jobs that make images (a node job is an image job that also records its node). */
export const IMAGE_JOB_KINDS = ['generate', 'edit', 'multimode', 'node'] as const;
/**
 * What a job is: an image job, a trace (POST /api/assets/derived), or a video (POST /api/video/*);
 * an agent turn (Agent Mode's queue items); an MCP-lane job (`mcp`, POST /api/mcp/generate). Each kind's stored request and result are typed in api/jobs.ts.
 */
export const JOB_KINDS = [...IMAGE_JOB_KINDS, 'trace', 'video', 'agent-turn', 'mcp'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** What made an asset: a generation (of a kind of image job), a trace, an import (an asset record's `kind`). */
export const ASSET_KINDS = [...IMAGE_JOB_KINDS, 'video', 'vector-svg', 'import'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

/** What an asset is, by its format: history's `kind=` filter takes these as well as an ASSET_KINDS value. */
export const MEDIA_KINDS = { image: IMAGE_FORMATS, video: ['mp4'], 'vector-svg': ['svg'] } as const satisfies Record<
  string,
  readonly string[]
>;
export type MediaKind = keyof typeof MEDIA_KINDS;

/**
 * A job's life: queued → running ⇄ waiting → one of the four ends (docs/ARCHITECTURE.md, "The job
 * engine"). `waiting`: the upstream holds the job and its next status call is scheduled.
 */
export const JOB_STATES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_JOB_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'interrupted'];
/** The states `POST /api/jobs/:id/retry` starts a new attempt from. */
export const RETRYABLE_JOB_STATES: readonly JobState[] = ['failed', 'cancelled', 'interrupted'];
/** A job's place in the queue: higher runs first. */
export const JOB_PRIORITY = { min: -10, max: 10, default: 0 } as const;

/** The steps of an image job, in order; every job publishes them as `phase` events (`searching`: the alpha lanes' web search). */
export const JOB_PHASES = ['queued', 'searching', 'planning', 'rendering', 'saving'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

/** What /api/providers says of a lane. */
/** `disconnected`: a lane whose models live on a local server none of which answers (flow: no workflow registered, or its servers down). */
/** `locked`: an MCP lane whose plan does not allow generation (catalog only). */
export const LANE_STATES = [
  'ready',
  'needs_credential',
  'needs_binary',
  'cooling_down',
  'unreachable',
  'unavailable',
  'disconnected',
  'locked',
] as const;
export type LaneState = (typeof LANE_STATES)[number];

/** Ours, where the spec leaves them open; documented in docs/API.md. */
export const API_LIMITS = {
  promptMaxChars: 32_000,
  multimodeMaxOutputs: 8,
  historyPageMax: 200,
} as const;
