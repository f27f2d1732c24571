import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { laneTimeoutMs } from '../budget.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule } from '../types.js';
import { responsesLaneError, type ResponsesLane } from './errors.js';
import { LANG_IMAGE_MODEL } from './models.js';
import type { ResponsesOptions } from './options.js';
import { PARTIAL_IMAGES, PLANNER_INSTRUCTIONS, buildResponsesBody } from './request.js';
import { callResponses } from './stream.js';

/** What differs between the two lanes for one call. */
export interface ResponsesTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The credential in `headers`. */
  readonly credential: string;
  readonly webSearch: boolean;
  readonly store?: boolean;
  readonly size?: string;
}

/** One image (generation or edit) through a Responses-style upstream, decoded and checked. */
export async function responsesImage(
  ctx: LaneEnv,
  lane: LaneModule,
  request: LaneImageRequest<ResponsesOptions>,
  job: LaneJob,
  target: ResponsesTarget,
): Promise<LaneImageResult> {
  const size = request.size ?? target.size;
  const { background, outputCompression } = request.options;
  const action = request.image ? 'edit' : 'generate';
  const body = buildResponsesBody({
    model: request.model.upstreamId,
    prompt: request.prompt,
    instructions: PLANNER_INSTRUCTIONS,
    images: request.image ? [request.image, ...request.references] : request.references,
    mask: request.mask,
    reasoning: request.reasoning,
    webSearch: target.webSearch,
    store: target.store,
    tool: {
      model: LANG_IMAGE_MODEL,
      format: request.format,
      size,
      quality: request.quality,
      moderation: request.moderation,
      background,
      outputCompression,
      partialImages: PARTIAL_IMAGES,
      action,
    },
  });
  const laneId = lane.id as ResponsesLane;
  const settings = {
    planner: request.model.id,
    imageModel: LANG_IMAGE_MODEL,
    size: size ?? 'auto',
    quality: request.quality ?? 'auto',
    format: request.format,
    moderation: request.moderation ?? 'auto',
    background: background ?? 'auto',
    ...(outputCompression !== undefined ? { outputCompression } : {}),
    reasoning: request.reasoning ?? null,
    webSearch: target.webSearch,
    action,
    mask: Boolean(request.mask),
    references: request.references.length,
  };
  let outcome;
  try {
    outcome = await callResponses({
      lane: laneId,
      url: target.url,
      headers: target.headers,
      credential: target.credential,
      body,
      timeoutMs: laneTimeoutMs(ctx, lane),
      format: request.format,
      job,
      onImage: (image) => job.imageReady?.({ ...image, settings }),
    });
  } catch (error) {
    throw responsesLaneError(laneId, error);
  }
  if (outcome.images.length === 0) {
    // The planner answered in words instead of calling the tool: that is how a refusal looks.
    if (outcome.text)
      throw new ServiceError('SAFETY_REFUSAL', `The upstream declined to make the image: ${outcome.text.slice(0, 300)}`, {
        details: { upstreamText: outcome.text.slice(0, 1000) },
      });
    throw new ServiceError('UPSTREAM_FAILED', 'The upstream response held no image.');
  }
  return {
    images: outcome.images,
    revisedPrompt: outcome.revisedPrompt,
    usage: outcome.usage,
    settings,
  };
}
