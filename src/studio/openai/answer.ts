import { isErrorCode, ServiceError } from '../errors.js';
import type { AssetRecord, GenerationResult, JobResult, MultimodeResult, Usage } from '../api/index.js';
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
    const images = batch.results.flatMap((slot) => (slot.ok && slot.image ? [{ image: slot.image, ...(slot.revisedPrompt ? { revisedPrompt: slot.revisedPrompt } : {}) }] : []));
    const failed = batch.results.find((slot) => !slot.ok)?.error;
    if (images.length === 0 && failed) throw new ServiceError(isErrorCode(failed.code) ? failed.code : 'INTERNAL_ERROR', failed.message, { details: failed.details });
    return { images };
  }
  const single = result as GenerationResult;
  return { images: single.images.map((image) => ({ image, ...(single.revisedPrompt ? { revisedPrompt: single.revisedPrompt } : {}) })), ...(single.usage ? { usage: single.usage } : {}) };
}

/** The base64 of a history image (read from the asset store, where the job saved it). */
export async function base64Of(ctx: StudioContext, image: AssetRecord): Promise<string> {
  const bytes = await ctx.assets.read('generated', image.filename);
  if (!bytes || !Buffer.isBuffer(bytes)) throw new ServiceError('NOT_FOUND', `The image ${image.filename} is no longer in history.`, { details: { filename: image.filename } });
  return bytes.toString('base64');
}

/** OpenAI's usage fields from the studio's (the token counts a lane reported). */
export const openaiUsage = (usage: Usage) => ({
  input_tokens: usage.inputTokens ?? 0,
  output_tokens: usage.outputTokens ?? 0,
  total_tokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
});

/** The settings an ImagesResponse (or a completed event) reports, from the first image and the request. */
export function settingsOf(request: OpenAIImageRequest, image: AssetRecord | undefined) {
  return {
    background: request.background && request.background !== 'auto' ? request.background : 'opaque',
    output_format: image?.format ?? request.output_format ?? 'png',
    quality: qualityOf(request.quality) ?? 'auto',
    size: image ? `${image.width}x${image.height}` : (request.size ?? 'auto'),
  };
}

/** The ImagesResponse of a finished job; `origin` (`http://host:port`) makes the URLs absolute. */
export async function imagesResponse(ctx: StudioContext, request: OpenAIImageRequest, result: JobResult, origin: string) {
  const { images, usage } = imagesOf(result);
  const data = await Promise.all(
    images.map(async ({ image, revisedPrompt }) => ({
      ...(request.response_format === 'url' ? { url: `${origin}${image.url}` } : { b64_json: await base64Of(ctx, image) }),
      ...(revisedPrompt ? { revised_prompt: revisedPrompt } : {}),
    })),
  );
  return {
    created: Math.floor(Date.now() / 1000),
    data,
    ...settingsOf(request, images[0]?.image),
    ...(usage ? { usage: openaiUsage(usage) } : {}),
  };
}
