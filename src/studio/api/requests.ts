import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { graphId } from './sessions.js';
import {
  API_LIMITS,
  ASSET_KINDS,
  JOB_PRIORITY,
  type AssetKind,
  IMAGE_FORMATS,
  LANE_IDS,
  MEDIA_KINDS,
  type MediaKind,
  MODERATIONS,
  PROVIDER_IDS,
  type LaneId,
  QUALITIES,
  REASONING_EFFORTS,
  REQUEST_ID_PATTERN,
  parseSize,
  sizeProblem,
} from './values.js';

// Request bodies and queries of the studio's HTTP API. Unknown fields are
// refused (a typo like `qualty` must not be ignored); a lane's own controls go
// in `options` and are validated by that lane's schema once the lane is known.

// The form `<width>x<height>` here; the side rule once the lane is known (SIZE_RULE, or the lane's own: jobs/plan.ts).
const size = lazy(() =>
  z.string().superRefine((value, context) => {
    const problem = parseSize(value) ? undefined : sizeProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  }),
);

/**
 * An input image: a data URL, plain base64, a history file name,
 * `{ data, name? }` or `{ filename }`. Its shape is checked when it is loaded
 * (the error then names the item and what is wrong with it).
 */
export const imageInput = lazy(() => z.unknown());

/** The settings of one output: a generation's, or one multimode slot's overrides. */
export const slotFields = lazy(() => ({
  provider: z.enum(PROVIDER_IDS).optional(),
  model: z.string().min(1).max(200).optional(),
  quality: z.enum(QUALITIES).optional(),
  size: size.optional(),
  format: z.enum(IMAGE_FORMATS).optional(),
  moderation: z.enum(MODERATIONS).optional(),
  /** Reasoning effort of the planner model (the spec has the control, not the field name). */
  reasoning: z.enum(REASONING_EFFORTS).optional(),
  /** The lane's own controls (e.g. aspect ratio), validated by the lane. */
  options: z.record(z.string(), z.unknown()).optional(),
}));

const generationFields = lazy(() => ({
  ...slotFields,
  prompt: z.string().trim().min(1).max(API_LIMITS.promptMaxChars),
  references: z.array(imageInput).optional(),
  requestId: z.string().regex(REQUEST_ID_PATTERN).optional(),
  async: z.boolean().optional(),
  /** false: the job keeps running when the client goes away, and its result lands in history. */
  cancelOnDisconnect: z.boolean().optional(),
  /** Its place in the queue when jobs wait: higher runs first (default 0). */
  priority: z.number().int().min(JOB_PRIORITY.min).max(JOB_PRIORITY.max).optional(),
  negativePrompt: z.string().max(API_LIMITS.promptMaxChars).optional(),
}));

/** POST /api/generate */
export const generateRequest = lazy(() => z.object(generationFields).strict());
/** POST /api/edit: `image` is the image to change; `mask` (transparent = editable) where the lane has it. */
export const editRequest = lazy(() => z.object({ ...generationFields, image: imageInput, mask: imageInput.optional() }).strict());
/** POST /api/generate/multimode: `outputs` lists each slot's overrides, or `n` repeats the shared settings (default 2); never both. */
export const multimodeRequest = lazy(() =>
  z
    .object({
      ...generationFields,
      outputs: z.array(z.object(slotFields).strict()).min(1).max(API_LIMITS.multimodeMaxOutputs).optional(),
      n: z.number().int().min(1).max(API_LIMITS.multimodeMaxOutputs).optional(),
    })
    .strict()
    // Neither may silently win: a client sending both means something neither gives.
    .refine((body) => !(body.outputs && body.n !== undefined), {
      message: 'give either outputs (one entry per slot) or n (copies of the shared settings), not both',
      path: ['n'],
    }),
);

export type GenerateRequest = z.infer<typeof generateRequest>;
export type EditRequest = z.infer<typeof editRequest>;
export type MultimodeRequest = z.infer<typeof multimodeRequest>;
export type SlotFields = z.infer<z.ZodObject<typeof slotFields>>;

/** PUT /api/defaults: any subset. */
export const defaultsRequest = lazy(() =>
  z
    .object({
      /** A model of the lanes that share the default model (oauth and api). */
      model: z.string().min(1).max(200).optional(),
      reasoning: z.enum(REASONING_EFFORTS).optional(),
      /** `<lane>/<model>`, e.g. alpha/alpha-video-1.5. */
      video: z.string().min(1).max(200).optional(),
      /** The alpha lanes' planner model (alpha-4.3, alpha-4.5, alpha-4.6). */
      plannerModel: z.string().min(1).max(200).optional(),
    })
    .strict(),
);
export type DefaultsRequest = z.infer<typeof defaultsRequest>;

const pageSize = lazy(() => z.coerce.number().int().min(1).max(API_LIMITS.historyPageMax));

/** An ISO 8601 date or date-time (with its offset; a bare date is midnight UTC), answered as UTC ISO. */
const instant = lazy(() =>
  z
    .string()
    .max(40)
    .transform((value, context) => {
      const time = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(time)) {
        context.addIssue({ code: 'custom', message: 'an ISO 8601 date or date-time, e.g. 2026-11-01 or 2026-11-01T08:00:00Z' });
        return z.NEVER;
      }
      return new Date(time).toISOString();
    }),
);

/** history's `kind=`: what an asset is (image, video, vector-svg) or what made it (generate, edit, node, import...). */
export const HISTORY_KINDS = [...new Set([...(Object.keys(MEDIA_KINDS) as MediaKind[]), ...ASSET_KINDS])] as [
  MediaKind | AssetKind,
  ...(MediaKind | AssetKind)[],
];

/** The filters of the item listing, every one combinable with the others. */
const HISTORY_FILTERS = ['session', 'sessionId', 'q', 'provider', 'model', 'kind', 'since', 'until'] as const;

/** DELETE /api/history/:filename: `permanent=true` deletes now, files and row, with no undo (default: a restorable tombstone). */
export const historyDeleteQuery = lazy(() =>
  z
    .object({ permanent: z.enum(['1', 'true', '0', 'false']).optional() })
    .strict()
    .transform(({ permanent }) => ({ permanent: permanent === '1' || permanent === 'true' })),
);

/** GET /api/history */
export const historyQuery = lazy(() =>
  z
    .object({
      limit: pageSize.optional(),
      cursor: z.string().min(1).max(1024).optional(),
      groupBy: z.enum(['session']).optional(),
      /** The items showing this session title; the empty string selects the assets without a title. */
      session: z.string().max(1024).optional(),
      /** One graph session's items (also after the session was deleted). */
      sessionId: graphId.optional(),
      /** Words of the prompt or the revised prompt (full-text: every word must appear; a word also matches longer words it begins). */
      q: z.string().trim().min(1).max(200).optional(),
      /** One lane's assets. */
      provider: z.enum(LANE_IDS as unknown as [LaneId, ...LaneId[]]).optional(),
      /** One model's assets (the model id as the asset records it). */
      model: z.string().trim().min(1).max(200).optional(),
      kind: z.enum(HISTORY_KINDS).optional(),
      /** Made at or after this instant. */
      since: instant.optional(),
      /** Made before this instant. */
      until: instant.optional(),
      groupItems: pageSize.optional(),
    })
    .refine((query) => !(query.groupBy && HISTORY_FILTERS.some((filter) => query[filter] !== undefined)), {
      message: `groupBy=session lists groups; narrow with ${HISTORY_FILTERS.map((filter) => `${filter}=`).join(', ')} on the item listing instead`,
    })
    .refine((query) => !(query.since && query.until && query.since >= query.until), {
      message: 'since must be before until',
      path: ['since'],
    }),
);
export type HistoryQuery = z.infer<typeof historyQuery>;

/** Route parameters that name a job. */
export const requestIdParam = lazy(() => z.object({ requestId: z.string().regex(REQUEST_ID_PATTERN) }));

/** POST /api/jobs/:requestId/retry: the new attempt's requestId (default `<first>~<attempt>`). */
export const retryRequest = lazy(() => z.object({ requestId: z.string().regex(REQUEST_ID_PATTERN).optional() }).strict());

/** POST /api/assets: an image from outside into history (the CLI's way to trace a local file). */
export const importRequest = lazy(() =>
  z
    .object({
      /** A data URL or base64 of a PNG, JPEG or WebP image (checked like a reference). */
      data: z.string().min(1),
      /** A name for it (kept as its prompt, so search finds it). */
      name: z.string().trim().min(1).max(200).optional(),
    })
    .strict(),
);
export type ImportRequest = z.infer<typeof importRequest>;

/** Derived asset kinds `POST /api/assets/derived` makes. */
export const DERIVED_KINDS = ['vector-svg'] as const;
