import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ASSET_FORMATS, COMMON_CONTROLS, LANE_CAPABILITIES, LANE_STATES } from './values.js';
import { VIDEO_MODES } from './video-values.js';
import { autoRouting, laneWarning } from './jobs-base.js';

// Result bodies of the studio's HTTP API: what the server answers and what
// `done` events carry. The server builds these types; tests check answers
// against the schemas.

/** The one error shape: `{ error: { code, message, details? } }` (also an `error` event's `error`). */
export const errorPayload = lazy(() =>
  z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
);
export type ErrorPayload = z.infer<typeof errorPayload>;
export const errorBody = lazy(() => z.object({ error: errorPayload }));

/** What history says of a video: read from the file by ffprobe when it was saved. */
export const videoFacts = lazy(() =>
  z.object({
    durationSeconds: z.number(),
    /** `480p`, `720p`, `1080p` (the short side), or `<n>p` for another size. */
    resolution: z.string(),
    /** The nearest of the video aspect ratios (16:9, 4:3, 3:2, 1:1, 2:3, 3:4, 9:16). */
    aspectRatio: z.string(),
    codec: z.string(),
    fps: z.number(),
    hasAudio: z.boolean(),
  }),
);
export type VideoFacts = z.infer<typeof videoFacts>;

/** One saved asset of history (an image, an SVG or a video). */
export const assetRecord = lazy(() =>
  z.object({
    filename: z.string(),
    url: z.string(),
    thumbnailUrl: z.string(),
    format: z.enum(ASSET_FORMATS),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int(),
    createdAt: z.string(),
    prompt: z.string(),
    /** The lane that made it. */
    provider: z.string(),
    model: z.string(),
    requestId: z.string(),
    kind: z.string(),
    sessionTitle: z.string().nullable(),
    /** The graph session it was made in (a node's image), or null; `sessionTitle` is then that session's title. */
    sessionId: z.string().nullable(),
    revisedPrompt: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()),
    /**
     * False right after a generation answers: the thumbnail (and the check that every pixel
     * decodes) follows off the request path; `thumbnail_ready` on topic `assets` says when.
     * `GET thumbnailUrl` waits for it meanwhile.
     */
    thumbnailReady: z.boolean(),
    /** A derived asset's source file (an SVG's traced raster); null otherwise. */
    derivedFrom: z.string().nullable(),
    /** A video's facts (format mp4); its poster is `thumbnailUrl`. */
    video: videoFacts.optional(),
  }),
);
export type AssetRecord = z.infer<typeof assetRecord>;

export const usage = lazy(() =>
  z.object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
  }),
);
export type Usage = z.infer<typeof usage>;

/** Where a job's time went (milliseconds). */
export const generationTimings = lazy(() =>
  z.object({
    /** The lane call: upstream request, stream, decode. */
    upstreamMs: z.number(),
    /** Saving every image: checks, metadata, thumbnail, files, row. */
    saveMs: z.number(),
    totalMs: z.number(),
  }),
);

/** A generation or edit (the sync answer and `done.result`). */
export const generationResult = lazy(() =>
  z.object({
    requestId: z.string(),
    provider: z.string(),
    /** Our id of the model that ran (after the lane default and compatibility mapping). */
    model: z.string(),
    /** What the client asked for, when it differs from `model`. */
    requestedModel: z.string().optional(),
    images: z.array(assetRecord),
    revisedPrompt: z.string().optional(),
    usage: usage.optional(),
    /** Settings the upstream call used, defaults filled in. */
    settings: z.record(z.string(), z.unknown()),
    timings: generationTimings,
    /** Common controls the lane dropped (`{ type: 'unsupported', field, lane }`); absent when none. */
    warnings: z.array(laneWarning).optional(),
    /** Present when `provider: auto` chose the lane: the lanes passed over before it, and why. */
    routing: autoRouting.optional(),
  }),
);
export type GenerationResult = z.infer<typeof generationResult>;

/** One output of a multimode batch: its image or why it failed (partial success is reported, never hidden). */
export const slotOutcome = lazy(() =>
  z.object({
    slot: z.number().int(),
    ok: z.boolean(),
    provider: z.string(),
    model: z.string(),
    image: assetRecord.optional(),
    revisedPrompt: z.string().optional(),
    error: errorPayload.optional(),
    warnings: z.array(laneWarning).optional(),
    routing: autoRouting.optional(),
  }),
);
export type SlotOutcome = z.infer<typeof slotOutcome>;

export const multimodeResult = lazy(() =>
  z.object({
    requestId: z.string(),
    results: z.array(slotOutcome),
    succeeded: z.number().int(),
    failed: z.number().int(),
  }),
);
export type MultimodeResult = z.infer<typeof multimodeResult>;

/** One lane in GET /api/providers. */
export const providerStatus = lazy(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    state: z.enum(LANE_STATES),
    reason: z.string(),
    /** `cooling_down`: when the lane may be tried again. */
    until: z.string().optional(),
    upstream: z.string().nullable(),
    /** The spec's runtime port of the lane: its upstream's origin and port; null without one. */
    runtime: z.object({ origin: z.string(), port: z.number().int() }).nullable().optional(),
    /** While the lane rests after a rate limit: until when, the code, and whether the vendor said when (`vendor`) or the default applies (`default`). */
    cooldown: z.object({ until: z.string(), code: z.string(), source: z.enum(['vendor', 'default']) }).optional(),
  }),
);
export type ProviderStatus = z.infer<typeof providerStatus>;

/** GET /api/team: the studio that answers, what its state is kept in, and the studios holding leases on its queue. */
export const teamBody = lazy(() =>
  z.object({
    instance: z.string(),
    storage: z.object({ database: z.enum(['sqlite', 'postgresql']), assets: z.enum(['files', 's3']) }),
    instances: z.array(
      z.object({
        instance: z.string(),
        /** Jobs it holds a lease on now (running, or waiting in place). */
        running: z.number().int(),
        /** When its newest lease runs out unless renewed (it renews them every heartbeat). */
        leaseExpiresAt: z.string(),
        /** Whether it is the studio that answered. */
        self: z.boolean(),
      }),
    ),
  }),
);
export type TeamBody = z.infer<typeof teamBody>;

/** Allowed whole seconds of a clip: a range, or a closed list. */
const videoDurations = lazy(() => z.union([z.object({ min: z.number(), max: z.number() }), z.object({ values: z.array(z.number()) })]));
const videoClipLimits = lazy(() => ({ durations: videoDurations, resolutions: z.array(z.string()) }));

/** What a video model takes (lanes/video-model.ts VideoLimits): the alpha lanes' are the spec's video rules, other lanes' their vendor's. */
export const videoLimits = lazy(() =>
  z.object({
    modes: z.array(z.enum(VIDEO_MODES)),
    ...videoClipLimits,
    defaultDuration: z.number(),
    defaultResolution: z.string().optional(),
    /** Empty: the model takes no aspect ratio. */
    aspectRatios: z.array(z.string()),
    /** Reference images of reference-to-video. */
    references: z.object({ min: z.number(), max: z.number() }).optional(),
    /** Where a mode's limits differ from the model's. */
    byMode: z.partialRecord(z.enum(VIDEO_MODES), z.object(videoClipLimits).partial()).optional(),
    edit: z.object({ maxSourceSeconds: z.number() }).optional(),
    extend: z.object({ durations: videoDurations }).optional(),
  }),
);
export type VideoLimitsBody = z.infer<typeof videoLimits>;

/** A lane's video capability in GET /api/capabilities: its models with their limits and own options (JSON Schema). */
export const laneVideoCapability = lazy(() =>
  z.object({
    defaultModel: z.string(),
    aliases: z.record(z.string(), z.string()),
    models: z.array(
      z.object({
        id: z.string(),
        label: z.string().optional(),
        description: z.string(),
        limits: videoLimits,
        options: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
  }),
);
export type LaneVideoCapability = z.infer<typeof laneVideoCapability>;

/** One provider in GET /api/capabilities: `auto` (a routing mode) or a lane. */
export const providerCapabilities = lazy(() =>
  z.union([
    z.object({
      id: z.literal('auto'),
      label: z.string(),
      description: z.string(),
      routingMode: z.literal(true),
      autoOrder: z.array(z.string()),
    }),
    z.object({
      id: z.string(),
      label: z.string(),
      description: z.string(),
      routingMode: z.literal(false),
      /** False while the lane has no adapter in this build (it answers LANE_NOT_AVAILABLE). */
      built: z.boolean(),
      credential: z.object({ kind: z.enum(['none', 'key', 'oauth-session', 'binary', 'mcp-server']) }).passthrough(),
      /** What it can do, derived from its adapter. */
      operations: z.object({ generate: z.boolean(), edit: z.boolean(), mask: z.boolean(), multimode: z.boolean() }),
      /** The shared request controls it takes. */
      controls: z.array(z.enum(COMMON_CONTROLS)),
      /** Its own controls (the request's `options`) as JSON Schema; null when it has none. */
      options: z.record(z.string(), z.unknown()).nullable(),
      maxInputImages: z.number().int(),
      timeoutSeconds: z.number(),
      /** The environment variable that overrides its time budget. */
      timeoutVariable: z.string(),
      defaultModel: z.string().nullable(),
      defaultVideoModel: z.string().nullable(),
      models: z.array(z.string()),
      /** What it can do: `image` (generate), `edit`, `video` (its `video` below), `text`. */
      capabilities: z.array(z.enum(LANE_CAPABILITIES)),
      /** Its video models and their limits; null when it makes no video. */
      video: laneVideoCapability.nullable(),
      /** Its text model (the prompt builder's and Agent Mode planner's backends); null when it has none. */
      text: z
        .object({
          models: z.array(z.object({ id: z.string(), label: z.string().optional(), description: z.string().optional() })),
          defaultModel: z.string(),
          webSearch: z.boolean(),
        })
        .nullable(),
      codes: z.record(z.string(), z.unknown()),
    }),
  ]),
);
export type ProviderCapabilities = z.infer<typeof providerCapabilities>;

/** One model across the lanes that offer it. */
export const catalogModel = lazy(() =>
  z.object({
    id: z.string(),
    kind: z.enum(['chat', 'image', 'video']),
    label: z.string().optional(),
    description: z.string(),
    compatibility: z.boolean().optional(),
    upstreamId: z.string().optional(),
    providers: z.array(z.string()),
    aliases: z.array(z.string()),
    /** Lanes on which this id runs as another model. */
    runsAs: z.record(z.string(), z.string()).optional(),
    /** Ours: the model's own options (the request's `options`) as JSON Schema, for a model found at run time (a flow workflow's parameters). */
    options: z.record(z.string(), z.unknown()).optional(),
  }),
);
export type CatalogModelEntry = z.infer<typeof catalogModel>;

/** GET /api/capabilities: version, providers, models, valid values and limits. */
export const capabilitiesBody = lazy(() =>
  z.object({
    version: z.string(),
    providers: z.array(providerCapabilities),
    autoOrder: z.array(z.string()),
    models: z.array(catalogModel),
    aliases: z.record(z.string(), z.string()),
    defaults: z.object({ imageRenderer: z.string(), alphaPlanner: z.string() }),
    values: z.record(z.string(), z.unknown()),
    keyNamespaces: z.record(z.string(), z.object({ env: z.string(), managed: z.boolean() })),
    limits: z.record(z.string(), z.unknown()),
  }),
);
export type CapabilitiesBody = z.infer<typeof capabilitiesBody>;
