import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import { API_LIMITS, IMAGE_FORMATS, isProviderId, MODERATIONS, QUALITIES, slotFields, type ProviderId } from '../api/index.js';
import type { ImageFields } from '../jobs/plan.js';

// What the official `openai` SDK sends to /v1/images/generations (JSON) and
// /v1/images/edits (multipart form fields, every value a string), and how it
// becomes the studio's own image fields. One schema serves both: numbers and
// booleans are also accepted as the text a form carries.

/** OpenAI's `partial_images` range. */
export const PARTIAL_IMAGES_MAX = 3;

/** An integer, or its decimal text (a form field). */
const int = (min: number, max: number) =>
  z.preprocess((value) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value), z.number().int().min(min).max(max));
/** A boolean, or `true` / `false` (a form field). */
const bool = lazy(() => z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean()));

/** OpenAI's qualities: the studio's, `auto` (the lane's default) and dall-e-3's `standard` / `hd`. */
const QUALITY_OF = {
  auto: undefined,
  standard: 'medium',
  hd: 'high',
  ...Object.fromEntries(QUALITIES.map((quality) => [quality, quality])),
} as const satisfies Record<string, (typeof QUALITIES)[number] | undefined>;

/** OpenAI's types allow `null` on every optional field (Python's `quality=None`): `null` means absent. */
const withoutNulls = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body)
    ? Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null))
    : body;

const imageRequestFields = lazy(() => ({
  prompt: z.string().trim().min(1).max(API_LIMITS.promptMaxChars),
  /** `<lane>/<model>`, a lane alone (its default model), a plain model id, or `auto`; absent: `auto`. */
  model: z.string().min(1).max(200).optional(),
  n: int(1, API_LIMITS.multimodeMaxOutputs).optional(),
  size: z.string().max(20).optional(),
  quality: z.enum(Object.keys(QUALITY_OF) as [keyof typeof QUALITY_OF, ...(keyof typeof QUALITY_OF)[]]).optional(),
  background: z.enum(['auto', 'transparent', 'opaque']).optional(),
  output_format: z.enum(IMAGE_FORMATS).optional(),
  /** The lane option `outputCompression` where a lane has it (api, oauth); else dropped with a warning. */
  output_compression: int(0, 100).optional(),
  /** dall-e-3's style (LangChain always sends it): no lane has it, so it is dropped with a warning. */
  style: z.enum(['vivid', 'natural']).optional(),
  moderation: z.enum(MODERATIONS).optional(),
  response_format: z.enum(['b64_json', 'url']).optional(),
  stream: bool.optional(),
  partial_images: int(0, PARTIAL_IMAGES_MAX).optional(),
  /** Accepted and not applied: the studio has one user. */
  user: z.string().max(200).optional(),
  /** OpenAI's successor of `user`: accepted and not applied, as `user`. */
  safety_identifier: z.string().max(200).optional(),
}));

/** POST /v1/images/generations */
export const openaiGenerateRequest = lazy(() => z.preprocess(withoutNulls, z.object(imageRequestFields).strict()));
/** POST /v1/images/edits: the form's text fields (its files are `image`, `image[]` and `mask`). */
export const openaiEditRequest = lazy(() =>
  z.preprocess(withoutNulls, z.object({ ...imageRequestFields, input_fidelity: z.enum(['low', 'high']).optional() }).strict()),
);

export type OpenAIImageRequest = z.infer<typeof openaiGenerateRequest>;

/** Valid values per field where the schema cannot say, for error answers. */
export const OPENAI_HINTS = {
  n: { min: 1, max: API_LIMITS.multimodeMaxOutputs },
  partial_images: { min: 0, max: PARTIAL_IMAGES_MAX },
  model: { examples: ['gamma/gamma-image-2', 'api/lang-5.6-luna', 'lang-6-luna', 'auto'], list: 'GET /v1/models' },
};

/** The lane and model an OpenAI `model` names: `<lane>/<model>`, `<lane>`, `auto` or a plain id (resolved like the studio's `model`). */
export function targetOf(model: string | undefined): { provider?: ProviderId; model?: string } {
  if (model === undefined || model === 'auto') return {};
  if (isProviderId(model)) return { provider: model };
  const slash = model.indexOf('/');
  const lane = model.slice(0, slash);
  // A prefix that names no lane leaves the whole text a plain id: its error then names it.
  if (slash > 0 && isProviderId(lane)) return { provider: lane, ...(slash < model.length - 1 ? { model: model.slice(slash + 1) } : {}) };
  return { model };
}

/** The studio's quality for OpenAI's; undefined: the lane's default. */
export const qualityOf = (quality: OpenAIImageRequest['quality']) => (quality === undefined ? undefined : QUALITY_OF[quality]);

/** The studio's image fields of an OpenAI request (its delivery and inputs aside). */
export function imageFieldsOf(request: OpenAIImageRequest): ImageFields {
  checkSize(request.size);
  const size = request.size === 'auto' ? undefined : request.size;
  const quality = qualityOf(request.quality);
  const options = laneOptionsOf(request);
  return {
    prompt: request.prompt,
    ...targetOf(request.model),
    ...(size !== undefined ? { size } : {}),
    ...(quality !== undefined ? { quality } : {}),
    ...(request.output_format ? { format: request.output_format } : {}),
    ...(request.moderation ? { moderation: request.moderation } : {}),
    ...(Object.keys(options).length ? { options } : {}),
  };
}

/** OpenAI fields that are lane options (gamma, api and oauth have `background`; api and oauth `outputCompression`), by option name. */
export const OPTION_FIELDS = { background: 'background', outputCompression: 'output_compression' } as const;
export type OptionName = keyof typeof OPTION_FIELDS;

/** The lane options an OpenAI request sets (`background: auto` sends nothing). */
export function laneOptionsOf(request: OpenAIImageRequest): Partial<Record<OptionName, unknown>> {
  return {
    ...(request.background !== undefined && request.background !== 'auto' ? { background: request.background } : {}),
    ...(request.output_compression !== undefined ? { outputCompression: request.output_compression } : {}),
  };
}

/** The size's form, as /api/generate checks it before the lane is known (the lane's own rule follows in planning). */
function checkSize(size: string | undefined): void {
  if (size === undefined || size === 'auto') return;
  const parsed = slotFields.size.safeParse(size);
  if (!parsed.success)
    throw new ServiceError('BAD_REQUEST', `size: ${parsed.error.issues[0].message} (or auto)`, { details: { field: 'size' } });
}
