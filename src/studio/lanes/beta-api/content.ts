import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { sniffImageType } from '../../media/image-type.js';
import type { LaneImage, LaneInputImage } from '../types.js';

// The `:generateContent` body we send and the answer we read (contract §3–§5).

export interface ContentRequest {
  readonly prompt: string;
  /** The edited image first, then the references. */
  readonly images: readonly LaneInputImage[];
  /** Absent in the cloud mode, whose endpoint takes neither control. */
  readonly imageConfig?: { readonly aspectRatio: string; readonly imageSize: string };
}

/** The JSON body: one user turn (text, then the images inline), image output only. */
export function contentBody(request: ContentRequest): string {
  const parts = [
    { text: request.prompt },
    ...request.images.map((image) => ({ inlineData: { mimeType: image.mime, data: image.bytes.toString('base64') } })),
  ];
  return JSON.stringify({
    contents: [{ role: 'user', parts }],
    generationConfig: { responseModalities: ['IMAGE'], ...(request.imageConfig ? { imageConfig: request.imageConfig } : {}) },
  });
}

const part = lazy(() =>
  z.object({
    text: z.string().optional(),
    inlineData: z.object({ mimeType: z.string(), data: z.string() }).optional(),
    thought: z.boolean().optional(),
  }),
);

export const contentAnswer = lazy(() =>
  z.object({
    candidates: z
      .array(
        z.object({
          content: z.object({ parts: z.array(part).optional() }).optional(),
          finishReason: z.string().optional(),
          finishMessage: z.string().optional(),
        }),
      )
      .optional(),
    promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
    usageMetadata: z
      .object({
        promptTokenCount: z.number().optional(),
        candidatesTokenCount: z.number().optional(),
        totalTokenCount: z.number().optional(),
      })
      .optional(),
    modelVersion: z.string().optional(),
    responseId: z.string().optional(),
  }),
);
export type ContentAnswer = z.infer<typeof contentAnswer>;

/** Finish reasons that mean a filter removed the output (contract §5.2). */
const BLOCKED_FINISH_REASONS = new Set([
  'SAFETY',
  'IMAGE_SAFETY',
  'PROHIBITED_CONTENT',
  'IMAGE_PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'RECITATION',
  'IMAGE_RECITATION',
  'MODEL_ARMOR',
]);

/**
 * The image of an answer: the last inline image that is not a "thought" (3-series
 * models show drafts first). A prompt-level block or a filtered candidate is
 * BETA_API_SAFETY_BLOCKED; any other answer without an image — whatever its
 * finish reason, a polite refusal in words included — is BETA_API_NO_IMAGE.
 */
export function imageOf(answer: ContentAnswer): LaneImage {
  const blockReason = answer.promptFeedback?.blockReason;
  if (blockReason) {
    throw new ServiceError('BETA_API_SAFETY_BLOCKED', `beta-api blocked the prompt (${blockReason}).`, {
      details: { lane: 'beta-api', blockReason, stage: 'prompt' },
    });
  }
  const candidate = answer.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const image = parts
    .filter((item) => item.inlineData && !item.thought && item.inlineData.mimeType.startsWith('image/'))
    .at(-1)?.inlineData;
  if (image) {
    const bytes = Buffer.from(image.data, 'base64');
    const format = sniffImageType(bytes);
    if (!format)
      throw new ServiceError('UPSTREAM_PROTOCOL_ERROR', `beta-api answered an inline ${image.mimeType} that is not PNG, JPEG or WebP.`, {
        details: { lane: 'beta-api' },
      });
    return { bytes, format };
  }
  const finishReason = candidate?.finishReason ?? null;
  const text = parts
    .filter((item) => !item.thought && item.text)
    .map((item) => item.text)
    .join(' ')
    .slice(0, 1000);
  const details = {
    lane: 'beta-api',
    finishReason,
    ...(candidate?.finishMessage ? { finishMessage: candidate.finishMessage.slice(0, 500) } : {}),
    ...(text ? { upstreamText: text } : {}),
  };
  if (finishReason && BLOCKED_FINISH_REASONS.has(finishReason)) {
    throw new ServiceError('BETA_API_SAFETY_BLOCKED', `beta-api's safety filter removed the image (${finishReason}).`, {
      details: { ...details, stage: 'output' },
    });
  }
  const why = text ? `it answered in words: ${text.slice(0, 200)}` : `finish reason ${finishReason ?? 'none'}`;
  throw new ServiceError('BETA_API_NO_IMAGE', `beta-api returned no image (${why}).`, { details });
}
