import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { VIDEO_MAX_BYTES } from '../../api/index.js';
import { looksLikeMp4 } from '../../media/video/index.js';
import { callUpstream, readBytes, readJson } from '../../upstream/index.js';
import type { LaneEnv } from '../env.js';
import { alphaClient, type AlphaCall, type AlphaLaneId } from './call.js';
import { checkedLink } from './download.js';

// The alpha vendor's video calls (contract §5): create a job on
// videos/generations, videos/edits or videos/extensions (→ request_id), poll
// GET videos/{id}, download the temporary link (no auth, https on a public
// address or the lane's own origin, no redirect, bounded, bytes checked to be
// MP4). Each call gets a fresh client, so a job's long poll is never cut by
// the image pipeline's budget; the poll's own budget is the image step's.

/** Largest answer of a create or a poll (a few fields of JSON). */
const ANSWER_MAX_BYTES = 64 * 1024;

export type VideoEndpoint = 'generations' | 'edits' | 'extensions';

const created = lazy(() => z.looseObject({ request_id: z.string().min(1) }));

const pollBody = lazy(() =>
  z.looseObject({
    status: z.string().optional(),
    progress: z.number().optional(),
    video: z
      .looseObject({ url: z.string().optional(), duration: z.number().optional(), respect_moderation: z.boolean().optional() })
      .optional(),
    model: z.string().optional(),
    usage: z.looseObject({ cost_in_usd_ticks: z.number().optional() }).optional(),
    error: z.union([z.looseObject({ code: z.string().optional(), message: z.string().optional() }), z.string()]).optional(),
  }),
);

export type VideoPoll =
  | { readonly state: 'pending'; readonly status: string; readonly fraction: number | undefined }
  | { readonly state: 'done'; readonly url: string; readonly costUsd: number | undefined; readonly model: string | undefined };

const TICKS_PER_USD = 10_000_000_000;

async function withCall<T>(ctx: LaneEnv, lane: AlphaLaneId, signal: AbortSignal, work: (call: AlphaCall) => Promise<T>): Promise<T> {
  const client = await alphaClient(ctx, lane, signal);
  return work(client.step('image'));
}

/** Creates the upstream job; answers its request_id. */
export function createVideoJob(
  ctx: LaneEnv,
  lane: AlphaLaneId,
  signal: AbortSignal,
  endpoint: VideoEndpoint,
  body: Record<string, unknown>,
): Promise<string> {
  return withCall(ctx, lane, signal, async (call) => {
    try {
      const answer = await call.send(`/videos/${endpoint}`, JSON.stringify(body), (response) =>
        readJson(lane, response, created, ANSWER_MAX_BYTES),
      );
      return answer.request_id;
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'INVALID_ALPHA_IMAGE_MODEL') {
        throw new ServiceError('INVALID_VIDEO_MODEL', `${lane} does not offer the video model ${String(body.model)}: ${error.message}`, {
          details: { lane, model: body.model },
          cause: error,
        });
      }
      throw error;
    }
  });
}

/** One poll: pending (with its progress 0–1 when given), done (the link), or a thrown failure in our codes. */
export function pollVideoJob(ctx: LaneEnv, lane: AlphaLaneId, signal: AbortSignal, requestId: string): Promise<VideoPoll> {
  return withCall(ctx, lane, signal, async (call) => {
    let body: z.infer<typeof pollBody>;
    try {
      body = await call.get(`/videos/${encodeURIComponent(requestId)}`, async (response) => {
        const text = (await readBytes(lane, response, ANSWER_MAX_BYTES)).toString('utf8').trim();
        // 202 with an empty body: still running (contract §5).
        return text ? pollBody.parse(JSON.parse(text)) : { status: 'pending' };
      });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'INVALID_ALPHA_IMAGE_MODEL') {
        throw new ServiceError('VIDEO_EXPIRED', `${lane} no longer knows the video job ${requestId} (404).`, {
          details: { lane, upstreamId: requestId },
          cause: error,
        });
      }
      throw error;
    }
    const fraction = body.progress === undefined ? undefined : Math.max(0, Math.min(1, body.progress / 100));
    // Older answers omit `status` but carry `video.url`: done (contract §5).
    const status = body.status ?? (body.video?.url ? 'done' : 'pending');
    if (status === 'done') {
      if (body.video?.respect_moderation === false) {
        throw new ServiceError(
          'MODERATION_REFUSED',
          `${lane}'s moderation blocked the video (respect_moderation: false); no video was made.`,
          { details: { lane, upstreamId: requestId } },
        );
      }
      if (!body.video?.url)
        throw new ServiceError('UPSTREAM_PROTOCOL_ERROR', `${lane} answered a done video job without a video link.`, {
          details: { lane, upstreamId: requestId },
        });
      const ticks = body.usage?.cost_in_usd_ticks;
      return { state: 'done', url: body.video.url, costUsd: ticks === undefined ? undefined : ticks / TICKS_PER_USD, model: body.model };
    }
    if (status === 'failed') {
      const error = typeof body.error === 'string' ? { message: body.error } : (body.error ?? {});
      throw new ServiceError('VIDEO_GENERATION_FAILED', `${lane} could not make the video${error.message ? `: ${error.message}` : '.'}`, {
        details: { lane, upstreamId: requestId, ...(error.code ? { upstreamCode: error.code } : {}) },
      });
    }
    if (status === 'expired')
      throw new ServiceError('VIDEO_EXPIRED', `${lane}'s video job ${requestId} expired before its result was fetched.`, {
        details: { lane, upstreamId: requestId },
      });
    // pending, and anything else that is not terminal (queued, processing).
    return { state: 'pending', status, fraction };
  });
}

/** Downloads the done job's MP4 (checked link, bounded, sniffed). */
export function downloadVideo(ctx: LaneEnv, lane: AlphaLaneId, signal: AbortSignal, link: string): Promise<Buffer> {
  return withCall(ctx, lane, signal, async (call) => {
    const url = await checkedLink(call, link, new URL(ctx.upstreamUrl(lane)).origin);
    let bytes: Buffer;
    try {
      bytes = await callUpstream({ lane, url: url.href, timeoutMs: call.remainingMs(), signal }, (response) =>
        readBytes(lane, response, VIDEO_MAX_BYTES),
      );
    } catch (error) {
      throw call.fail(error, 'download');
    }
    if (!looksLikeMp4(bytes))
      throw new ServiceError(
        'ALPHA_OUTPUT_DOWNLOAD_FAILED',
        `The ${lane} video link (${url.origin}${url.pathname}) did not serve an MP4.`,
        { details: { lane, step: 'download' } },
      );
    return bytes;
  });
}
