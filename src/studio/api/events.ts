import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { jobResult, laneWarning } from './jobs.js';
import { errorPayload, slotOutcome } from './results.js';
import { IMAGE_FORMATS, JOB_KINDS, JOB_PHASES } from './values.js';
import { VIDEO_MODES } from './video.js';
import { MCP_LANES, MCP_MEDIA_KINDS, MCP_PHASES } from './mcp.js';

// Payloads of the events every job publishes on the shared channel (topic
// `generation`), so what `GET /api/events` and per-request SSE carry. Each
// requestId ends with exactly one `done` or `error`; multimode slots report
// with `slot_done` / `slot_error` so those two stay terminal. The channel adds
// `id`, `topic` and `event` to every payload.

export const GENERATION_TOPIC = 'generation';

/** `instance` (ours, team mode only): the studio that published the event (GET /api/health `instance`); absent on an embedded studio. */
const base = lazy(() => ({
  requestId: z.string(),
  kind: z.enum(JOB_KINDS),
  slot: z.number().int().optional(),
  instance: z.string().optional(),
}));
/** Which clip of a video job (1-based) and how many it has. */
const videoClip = lazy(() => ({ clip: z.number().int().min(1), clips: z.number().int().min(1) }));

// The names are read at load (GENERATION_EVENTS); each payload's schema is built on first use.
export const generationEventPayloads = {
  /** `state`: the job's (queued, running, waiting); `position`: a queued job's place (1 = next). */
  phase: lazy(() =>
    z.object({
      ...base,
      phase: z.enum(JOB_PHASES),
      provider: z.string().optional(),
      model: z.string().optional(),
      state: z.enum(['queued', 'running', 'waiting']).optional(),
      position: z.number().int().optional(),
      /** Ours: the job's place in the upstream's own queue (1 = next), while the upstream holds it waiting (flow). */
      queuePosition: z.number().int().optional(),
    }),
  ),
  /** Step progress inside the upstream's run (flow: a sampler's step `value` of `max`, in `node`). Ours where the spec names the event only. */
  // A video's poll (below) is a `progress` too, with its own fields: the payload is one or the other.
  progress: lazy(() =>
    z.union([
      z.object({
        ...base,
        value: z.number().int(),
        max: z.number().int(),
        node: z.string().optional(),
        provider: z.string().optional(),
        model: z.string().optional(),
      }),
      /** Video (spec: Events 4), one poll: `fraction` 0–1 of the clip; `stalled` once the upstream has not moved for a while (SVC_VIDEO_STALL_MS). */
      z.object({ ...base, ...videoClip, fraction: z.number().min(0).max(1), stalled: z.boolean(), upstreamState: z.string().optional() }),
      /** MCP lanes (spec: Events 5): `uploading` (input `current` of `total`), `provider-queued`, `provider-running`, `downloading`. */
      z.object({
        ...base,
        provider: z.enum(MCP_LANES),
        phase: z.enum(MCP_PHASES),
        current: z.number().int().optional(),
        total: z.number().int().optional(),
        upstreamState: z.string().optional(),
      }),
    ]),
  ),
  /** A low-quality intermediate render. `b64` reaches live listeners only: replayed copies omit it (`omitted: ['b64']`). */
  partial: lazy(() =>
    z.object({
      ...base,
      index: z.number().int(),
      format: z.enum(IMAGE_FORMATS),
      b64: z.string().optional(),
      omitted: z.array(z.string()).optional(),
    }),
  ),
  slot_done: lazy(() => z.object({ ...base, slot: z.number().int(), result: slotOutcome })),
  slot_error: lazy(() => z.object({ ...base, slot: z.number().int(), error: errorPayload })),
  // Video (spec: Events 4): `planning`, `submitted`, `progress`…, `done` in that order, per clip
  // (`clip` of `clips`: 1 of 1 for one video, a storyboard's each in turn), or `error`.
  /** The clip starts: the planner model (on lanes that have one) writes its final prompt. */
  planning: lazy(() => z.object({ ...base, ...videoClip, provider: z.string(), model: z.string(), plannerModel: z.string().optional() })),
  /** The upstream accepted the clip: its job id, the model asked for and the one that runs (the base model for references, edits, extensions). */
  submitted: lazy(() =>
    z.union([
      z.object({
        ...base,
        ...videoClip,
        provider: z.string(),
        upstreamId: z.string(),
        requestedModel: z.string(),
        model: z.string(),
        mode: z.enum(VIDEO_MODES),
      }),
      /** MCP lanes: the job started on its lane (`media`: image or video; the contract's `kind`, which `kind` already names here as the job's). */
      z.object({ ...base, provider: z.enum(MCP_LANES), media: z.enum(MCP_MEDIA_KINDS), model: z.string() }),
    ]),
  ),
  // `progress` (above): one poll's `fraction` and `stalled`.
  /** `warnings` (ours): the result's dropped controls, repeated on the event so a listener sees them without reading the result. */
  done: lazy(() => z.object({ ...base, result: jobResult, warnings: z.array(laneWarning).optional() })),
  error: lazy(() => z.object({ ...base, error: errorPayload })),
} as const;

export type GenerationEventName = keyof typeof generationEventPayloads;
export const GENERATION_EVENTS = Object.keys(generationEventPayloads) as GenerationEventName[];
export type GenerationEventPayload<E extends GenerationEventName> = z.infer<(typeof generationEventPayloads)[E]>;

/** An event as a client receives it. */
export type GenerationEvent = {
  [E in GenerationEventName]: GenerationEventPayload<E> & { id: string; topic: typeof GENERATION_TOPIC; event: E };
}[GenerationEventName];

/**
 * Topic `assets`: what happens to a saved image after its generation
 * answered. `thumbnail_ready`: its thumbnail exists and every pixel decoded.
 * `asset_broken`: it did not decode, so it left history (tombstoned).
 */
export const ASSET_TOPIC = 'assets';

export const assetEventPayloads = {
  thumbnail_ready: lazy(() => z.object({ filename: z.string(), requestId: z.string(), thumbnailUrl: z.string() })),
  asset_broken: lazy(() => z.object({ filename: z.string(), requestId: z.string(), error: errorPayload })),
} as const;

export type AssetEventName = keyof typeof assetEventPayloads;
export type AssetEventPayload<E extends AssetEventName> = z.infer<(typeof assetEventPayloads)[E]>;

/** The channel's notice that a cursor could not be honoured: refetch state (GET /api/inflight, /api/jobs/:id). */
export const replayGapEvent = lazy(() =>
  z.object({
    id: z.string(),
    topic: z.literal('system'),
    event: z.literal('replay_gap'),
    reason: z.enum(['evicted', 'unknown_run', 'invalid_cursor']),
    requestedId: z.string(),
    oldestId: z.string().nullable(),
    missed: z.number().optional(),
  }),
);
export type ReplayGapEvent = z.infer<typeof replayGapEvent>;

/** Whether a generation event ends its requestId. */
export const isTerminalEvent = (event: { event: string; slot?: number }): boolean =>
  (event.event === 'done' || event.event === 'error') && event.slot === undefined;
