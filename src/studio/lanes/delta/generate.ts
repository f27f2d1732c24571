import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { sniffImageType } from '../../media/image-type.js';
import { callUpstream, readJson } from '../../upstream/index.js';
import { laneTimeoutMs } from '../budget.js';
import type { LaneImage, LaneImageRequest, LaneImageResult, LaneInputImage, LaneJob, LaneModule } from '../types.js';
import { baseRespFailure, deltaError, parseDeltaError } from './errors.js';
import type { DeltaOptions } from './options.js';
import { deltaSize } from './sizes.js';

// One delta generation: `POST {base}/v1/image_generation` with a JSON body,
// answered synchronously with base64 images inside a `base_resp` envelope.

/** Contract §2: the prompt limit. */
export const DELTA_PROMPT_MAX_CHARS = 1500;
/** Contract §2: a subject reference is JPEG or PNG under 10 MB. */
export const DELTA_REFERENCE_MAX_BYTES = 10 * 1024 * 1024;
const DELTA_REFERENCE_TYPES = ['image/jpeg', 'image/png'];

const count = lazy(() => z.union([z.number(), z.string()]).nullish());
const answerSchema = lazy(() =>
  z.looseObject({
    id: z.string().nullish(),
    data: z
      .looseObject({
        // Some clients meet a bare string instead of a list; both are read.
        image_base64: z.union([z.array(z.string()), z.string()]).nullish(),
        image_urls: z.array(z.string()).nullish(),
      })
      .nullish(),
    metadata: z.looseObject({ success_count: count, failed_count: count }).nullish(),
    base_resp: z.looseObject({ status_code: z.number(), status_msg: z.string().nullish() }),
  }),
);
type DeltaAnswer = z.infer<typeof answerSchema>;

function checkRequest(request: LaneImageRequest): void {
  if (request.prompt.length > DELTA_PROMPT_MAX_CHARS) {
    throw new ServiceError(
      'BAD_REQUEST',
      `prompt: delta takes at most ${DELTA_PROMPT_MAX_CHARS} characters; this one has ${request.prompt.length}.`,
      {
        details: { lane: 'delta', field: 'prompt', max: DELTA_PROMPT_MAX_CHARS, got: request.prompt.length },
      },
    );
  }
  for (const [index, reference] of request.references.entries()) {
    if (!DELTA_REFERENCE_TYPES.includes(reference.mime)) {
      throw new ServiceError(
        'REFERENCE_TYPE_UNSUPPORTED',
        `references[${index}]: delta takes JPEG or PNG references, not ${reference.mime}.`,
        {
          details: { lane: 'delta', field: 'references', index, valid: DELTA_REFERENCE_TYPES },
        },
      );
    }
    if (reference.bytes.length >= DELTA_REFERENCE_MAX_BYTES) {
      throw new ServiceError(
        'REFERENCE_TOO_LARGE',
        `references[${index}]: delta takes references under ${DELTA_REFERENCE_MAX_BYTES} bytes.`,
        {
          details: { lane: 'delta', field: 'references', index, maxBytes: DELTA_REFERENCE_MAX_BYTES - 1, bytes: reference.bytes.length },
        },
      );
    }
  }
}

const dataUrl = (image: LaneInputImage): string => `data:${image.mime};base64,${image.bytes.toString('base64')}`;

/** The images of a successful envelope; a bare string and a `data:` prefix are tolerated. */
function imagesOf(answer: DeltaAnswer): LaneImage[] {
  const raw = answer.data?.image_base64;
  const list = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
  return list.map((text) => {
    const bytes = Buffer.from(text.replace(/^data:[^,]*,/, ''), 'base64');
    const format = sniffImageType(bytes);
    if (!format)
      throw new ServiceError('UPSTREAM_FAILED', 'delta answered an image that is not PNG, JPEG or WebP.', {
        details: { lane: 'delta', retryable: true },
      });
    return { bytes, format };
  });
}

export async function deltaGenerate(
  ctx: LaneEnv,
  lane: LaneModule,
  key: string,
  request: LaneImageRequest<DeltaOptions>,
  job: LaneJob,
): Promise<LaneImageResult> {
  checkRequest(request);
  const model = request.model.upstreamId;
  const size = deltaSize(model, request.size);
  const { options } = request;
  const promptOptimizer = options.promptOptimizer ?? false;
  const body = {
    model,
    prompt: request.prompt,
    ...size.fields,
    // Base64 keeps the images in this answer: no second download from a link.
    response_format: 'base64',
    n: 1,
    prompt_optimizer: promptOptimizer,
    aigc_watermark: false,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(request.references.length
      ? { subject_reference: request.references.map((reference) => ({ type: 'character', image_file: dataUrl(reference) })) }
      : {}),
  };
  job.phase('planning');
  let answer: DeltaAnswer;
  try {
    answer = await callUpstream(
      {
        lane: 'delta',
        url: `${ctx.upstreamUrl('delta')}/v1/image_generation`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        credentials: [key],
        timeoutMs: laneTimeoutMs(ctx, lane),
        signal: job.signal,
        parseError: parseDeltaError,
      },
      async (response) => {
        job.phase('rendering');
        const parsed = await readJson('delta', response, answerSchema);
        // HTTP 200 with a non-zero code is a failure all the same.
        if (parsed.base_resp.status_code !== 0)
          throw baseRespFailure(parsed.base_resp.status_code, parsed.base_resp.status_msg ?? undefined);
        return parsed;
      },
    );
  } catch (error) {
    throw deltaError(error);
  }
  const images = imagesOf(answer);
  if (images.length === 0) {
    // Success without images is how the vendor's silent moderation looks.
    const failed = Number(answer.metadata?.failed_count ?? 0);
    const why = failed > 0 ? `${failed} image(s) were filtered upstream` : 'the answer held no image';
    throw new ServiceError('DELTA_NO_IMAGE', `delta succeeded but ${why}.`, {
      details: { lane: 'delta', failedCount: failed, retryable: false },
    });
  }
  return {
    images,
    settings: {
      model,
      size: size.size,
      ...('aspect_ratio' in size.fields
        ? { aspectRatio: size.fields.aspect_ratio }
        : { width: size.fields.width, height: size.fields.height }),
      promptOptimizer,
      seed: options.seed ?? null,
      references: request.references.length,
      responseFormat: 'base64',
      upstreamId: answer.id ?? null,
    },
  };
}
