import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { sniffImageType } from '../../media/image-type.js';
import { readJson } from '../../upstream/index.js';
import { dataUrlPieces } from '../responses/request.js';
import type { LaneImage, LaneInputImage } from '../types.js';
import type { AlphaCall } from './call.js';
import type { AlphaSelection } from './sizes.js';

// The third step (contract §3–4): text-only requests go to
// `images/generations`, requests with input images (references, a node's
// parent, an agent's current image; the edited one first) to `images/edits`,
// both JSON. One image per request, as a link (the vendor's default; fetched
// at once by download.ts) or inline base64 when the vendor sends that.

/** 1 USD = 10^10 ticks (contract §3). */
export const TICKS_PER_USD = 10_000_000_000;

export interface ImageCallInput {
  readonly model: string;
  readonly prompt: string;
  readonly selection: AlphaSelection;
  readonly quality?: string;
  /** The edited image first, then the references. */
  readonly sources: readonly LaneInputImage[];
}

/** The body as a Blob: JSON text around each source's data URL (encoded once, outside the JS heap). */
function imageBody(input: ImageCallInput): Blob {
  const { selection, sources } = input;
  const fields: Record<string, unknown> = {
    model: input.model,
    prompt: input.prompt,
    n: 1,
    response_format: 'url',
    resolution: selection.resolution,
    // A single-source edit keeps its source's ratio (the vendor ignores aspect_ratio there).
    ...(sources.length === 1 ? {} : { aspect_ratio: selection.aspectRatio }),
    ...(input.quality ? { quality: input.quality } : {}),
  };
  const json = JSON.stringify(fields);
  if (!sources.length) return new Blob([json]);
  const parts: BlobPart[] = [`${json.slice(0, -1)},${sources.length === 1 ? '"image":' : '"images":['}`];
  sources.forEach((source, index) => {
    parts.push(index ? ',{"url":"' : '{"url":"', ...dataUrlPieces(source), sources.length === 1 ? '","type":"image_url"}' : '"}');
  });
  parts.push(sources.length === 1 ? '}' : ']}');
  return new Blob(parts);
}

const imageItem = lazy(() =>
  z.looseObject({ url: z.string().optional(), b64_json: z.string().optional(), revised_prompt: z.string().nullish() }),
);
const imagesAnswer = lazy(() =>
  z.looseObject({
    data: z.array(imageItem),
    usage: z.looseObject({ cost_in_usd_ticks: z.number().optional() }).nullish(),
  }),
);

export type ImageOutput = { readonly kind: 'link'; readonly url: string } | { readonly kind: 'inline'; readonly image: LaneImage };

export interface ImageAnswer {
  readonly output: ImageOutput;
  readonly revisedPrompt?: string;
  readonly costUsd?: number;
}

/** Checked before decoding, like a reference: an oversized inline image costs no memory. */
const INLINE_MAX_BYTES = 50 * 1024 * 1024;

export async function createImage(call: AlphaCall, input: ImageCallInput): Promise<ImageAnswer> {
  const path = input.sources.length ? '/images/edits' : '/images/generations';
  const answer = await call.send(path, imageBody(input), (response) => readJson(call.lane, response, imagesAnswer, 96 * 1024 * 1024));
  const item = answer.data[0];
  const noImage = () =>
    new ServiceError('UPSTREAM_FAILED', `The ${call.lane} image API answered without an image.`, {
      details: { lane: call.lane, step: 'image', retryable: true },
    });
  if (!item) throw noImage();
  const ticks = answer.usage?.cost_in_usd_ticks;
  const common = {
    ...(item.revised_prompt ? { revisedPrompt: item.revised_prompt } : {}),
    ...(ticks !== undefined ? { costUsd: ticks / TICKS_PER_USD } : {}),
  };
  if (item.b64_json) {
    if ((item.b64_json.length * 3) / 4 > INLINE_MAX_BYTES)
      throw new ServiceError('ALPHA_OUTPUT_DOWNLOAD_FAILED', `The ${call.lane} inline image is over ${INLINE_MAX_BYTES} bytes.`, {
        details: { lane: call.lane, step: 'image' },
      });
    const bytes = Buffer.from(item.b64_json, 'base64');
    const format = sniffImageType(bytes);
    if (!format)
      throw new ServiceError('ALPHA_OUTPUT_DOWNLOAD_FAILED', `The ${call.lane} inline image is not a PNG, JPEG or WebP image.`, {
        details: { lane: call.lane, step: 'image' },
      });
    return { output: { kind: 'inline', image: { bytes, format } }, ...common };
  }
  if (item.url) return { output: { kind: 'link', url: item.url }, ...common };
  throw noImage();
}
