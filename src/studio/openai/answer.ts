import { isErrorCode, ServiceError } from '../errors.js';
import type { AssetRecord, GenerationResult, ImageJobRequest, JobResult, LaneWarning, MultimodeResult, Usage } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { qualityOf, type OpenAIImageRequest } from './requests.js';

// A finished job in OpenAI's ImagesResponse shape: every image of the job
// (already in history) as base64 or as an absolute URL of the studio's own
// file route, with the settings that ran.

/** One image of a finished job and the prompt the lane revised it to. */
export interface JobImage {
  readonly image: AssetRecord;
  readonly revisedPrompt?: string;
}

/** The images of a generate, edit or multimode result; a batch whose every slot failed is its first slot's error. */
export function imagesOf(result: JobResult): { images: JobImage[]; usage?: Usage } {
  if ('results' in result) {
    const batch = result as MultimodeResult;
    const images = batch.results.flatMap((slot) =>
      slot.ok && slot.image ? [{ image: slot.image, ...(slot.revisedPrompt ? { revisedPrompt: slot.revisedPrompt } : {}) }] : [],
    );
    const failed = batch.results.find((slot) => !slot.ok)?.error;
    if (images.length === 0 && failed)
      throw new ServiceError(isErrorCode(failed.code) ? failed.code : 'INTERNAL_ERROR', failed.message, { details: failed.details });
    return { images };
  }
  const single = result as GenerationResult;
  return {
    images: single.images.map((image) => ({ image, ...(single.revisedPrompt ? { revisedPrompt: single.revisedPrompt } : {}) })),
    ...(single.usage ? { usage: single.usage } : {}),
  };
}

/** The base64 of a history image (read from the asset store, where the job saved it). */
export async function base64Of(ctx: StudioContext, image: AssetRecord): Promise<string> {
  const bytes = await ctx.assets.read('generated', image.filename);
  if (!bytes || !Buffer.isBuffer(bytes))
    throw new ServiceError('NOT_FOUND', `The image ${image.filename} is no longer in history.`, { details: { filename: image.filename } });
  return bytes.toString('base64');
}

/** OpenAI's usage fields from the studio's (the token counts a lane reported). */
export const openaiUsage = (usage: Usage) => ({
  input_tokens: usage.inputTokens ?? 0,
  output_tokens: usage.outputTokens ?? 0,
  total_tokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
});

/** The studio's field names that OpenAI names otherwise. */
const OPENAI_FIELD: Readonly<Record<string, string>> = { format: 'output_format' };

/** Warnings in OpenAI's field names (the studio's `format` is `output_format`), each field and lane once. */
export function openaiWarnings(warnings: readonly LaneWarning[]): LaneWarning[] {
  const seen = new Set<string>();
  return warnings.flatMap((warning) => {
    const field = OPENAI_FIELD[warning.field] ?? warning.field;
    const key = `${field}\u0000${warning.lane}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ ...warning, field }];
  });
}

/** The warnings a planned job records (every slot's): known before it runs, so a stream's headers carry them too. */
export const plannedWarnings = (request: ImageJobRequest): LaneWarning[] =>
  openaiWarnings(request.slots.flatMap((slot) => slot.warnings ?? []));

/** The warnings a finished job recorded (a batch: every slot's). */
export function resultWarnings(result: JobResult): LaneWarning[] {
  if ('results' in result) return openaiWarnings((result as MultimodeResult).results.flatMap((slot) => slot.warnings ?? []));
  return openaiWarnings((result as GenerationResult).warnings ?? []);
}

/** The header that names the dropped fields (`quality, output_format`), for a client that reads headers only; the body's `warnings` has the lanes. */
export const WARNINGS_HEADER = 'x-svc-warnings';
export const warningsHeader = (warnings: readonly LaneWarning[]): string =>
  [...new Set(warnings.map((warning) => warning.field))].join(', ');

const QUALITIES_OF_ANSWER = new Set(['low', 'medium', 'high', 'auto']);
const BACKGROUNDS_OF_ANSWER = new Set(['opaque', 'transparent']);

/**
 * The settings an ImagesResponse (or a completed event) reports, as applied: what the lane says it
 * used (the image's settings), else what was asked unless the lane dropped it. A dropped `quality`
 * is left out (the lane has none); a dropped `background` is `opaque`.
 */
export function settingsOf(request: OpenAIImageRequest, image: AssetRecord | undefined, warnings: readonly LaneWarning[]) {
  const applied = image?.settings ?? {};
  const dropped = (field: string) => warnings.some((warning) => warning.field === field);
  const asked = request.background && request.background !== 'auto' ? request.background : 'opaque';
  const background =
    typeof applied.background === 'string' && BACKGROUNDS_OF_ANSWER.has(applied.background)
      ? applied.background
      : dropped('background')
        ? 'opaque'
        : asked;
  const quality =
    typeof applied.quality === 'string' && QUALITIES_OF_ANSWER.has(applied.quality)
      ? applied.quality
      : dropped('quality')
        ? undefined
        : (qualityOf(request.quality) ?? 'auto');
  return {
    background,
    output_format: image?.format ?? request.output_format ?? 'png',
    ...(quality !== undefined ? { quality } : {}),
    size: image ? `${image.width}x${image.height}` : (request.size ?? 'auto'),
  };
}

/** The ImagesResponse of a finished job; `origin` (`http://host:port`) makes the URLs absolute. */
export async function imagesResponse(ctx: StudioContext, request: OpenAIImageRequest, result: JobResult, origin: string) {
  const { images, usage } = imagesOf(result);
  const warnings = resultWarnings(result);
  const data = await Promise.all(
    images.map(async ({ image, revisedPrompt }) => ({
      ...(request.response_format === 'url' ? { url: `${origin}${image.url}` } : { b64_json: await base64Of(ctx, image) }),
      ...(revisedPrompt ? { revised_prompt: revisedPrompt } : {}),
    })),
  );
  return {
    created: Math.floor(Date.now() / 1000),
    data,
    ...settingsOf(request, images[0]?.image, warnings),
    ...(usage ? { usage: openaiUsage(usage) } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}
