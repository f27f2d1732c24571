import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { loadSharp } from '../../../common/sharp.js';
import type { LaneEnv } from '../env.js';
import type { LaneModule } from '../types.js';
import { settingOf } from '../settings.js';
import type { VideoClipRequest, VideoModel } from '../video-model.js';
import { alphaClient, checkAlphaCredential, type AlphaLaneId } from './call.js';
import { phaseBudgetMs } from './phases.js';
import { planPrompt } from './planner.js';
import { alphaFrameDescriber } from './video-frames.js';
import { ALPHA_DEFAULT_VIDEO_MODEL, ALPHA_VIDEO_ALIASES, ALPHA_VIDEO_MODELS, planAlphaVideo } from './video-rules.js';
import { createVideoJob, downloadVideo, pollVideoJob, type VideoEndpoint } from './video-upstream.js';

// The alpha lanes' video capability (spec: Video; contract §5): each clip's
// start has the planner write its final prompt, then creates the upstream job
// (videos/generations, edits or extensions: its request_id is the operation);
// each status is one poll, and the done job's MP4 is downloaded here (its
// link checked as the lane's image links are). Prompt-only text-to-video on
// alpha-video-1.5 sends a plain canvas of the ratio (the spec's canvas shim).

/** Poll cadence: soon after the submit, then every 5 s (the contract's clients); SVC_VIDEO_POLL_MS sets one interval. */
const POLL_INTERVALS_MS = [1000, 2000, 3000, 5000] as const;
/** One clip's upstream time (the contract's clients wait 10 minutes); SVC_VIDEO_TIMEOUT_MS overrides it. */
const CLIP_TIMEOUT_MS = 10 * 60_000;

const envMs = (ctx: LaneEnv, name: string): number | undefined => {
  const value = Number(ctx.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
};

const dataUrl = (mime: string, bytes: Buffer): string => `data:${mime};base64,${bytes.toString('base64')}`;

const EMPTY_SEARCH = { summary: '', citations: [], usage: { inputTokens: 0, outputTokens: 0 } } as const;

/** The operation an alpha clip stores: its upstream request_id. */
const alphaOperation = lazy(() => z.object({ upstreamId: z.string().min(1) }));

/** A plain canvas of the clip's ratio: alpha-video-1.5 starts from an image, so prompt-only text-to-video sends this. */
async function canvasShim(aspectRatio: string): Promise<Buffer> {
  const [w, h] = aspectRatio.split(':').map(Number);
  const sharp = await loadSharp();
  const [width, height] = [Math.round(w * 40), Math.round(h * 40)];
  return sharp(Buffer.alloc(width * height * 3, 128), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** The upstream endpoint and body of one clip. */
async function clipCall(clip: VideoClipRequest, prompt: string): Promise<{ endpoint: VideoEndpoint; body: Record<string, unknown> }> {
  const base = { model: clip.model.upstreamId, prompt };
  if (clip.operation === 'edit' || clip.operation === 'extend') {
    const source = dataUrl('video/mp4', await (clip.source as NonNullable<VideoClipRequest['source']>).mp4());
    return clip.operation === 'edit'
      ? { endpoint: 'edits', body: { ...base, video: { url: source } } }
      : { endpoint: 'extensions', body: { ...base, video: { url: source }, duration: clip.duration } };
  }
  const shape = {
    duration: clip.duration,
    ...(clip.resolution ? { resolution: clip.resolution } : {}),
    ...(clip.aspectRatio ? { aspect_ratio: clip.aspectRatio } : {}),
  };
  if (clip.mode === 'reference-to-video')
    return {
      endpoint: 'generations',
      body: { ...base, ...shape, reference_images: clip.images.map((image) => ({ url: dataUrl(image.mime, image.bytes) })) },
    };
  if (clip.mode === 'image-to-video')
    return { endpoint: 'generations', body: { ...base, ...shape, image: { url: dataUrl(clip.images[0].mime, clip.images[0].bytes) } } };
  // Text-to-video: the 1.5 model takes a first frame, so it gets a plain canvas of the ratio.
  if (clip.model.id === 'alpha-video-1.5') {
    const ratio = clip.aspectRatio ?? '16:9';
    return {
      endpoint: 'generations',
      body: { ...base, ...shape, aspect_ratio: ratio, image: { url: dataUrl('image/png', await canvasShim(ratio)) } },
    };
  }
  return { endpoint: 'generations', body: { ...base, ...shape } };
}

/** The video model of an alpha lane (`lane()` is its module: its planner setting). */
export function alphaVideo(id: AlphaLaneId, lane: () => LaneModule): VideoModel {
  const planner = (ctx: LaneEnv): string => settingOf<string>(ctx, lane(), 'plannerModel');
  return {
    specificationVersion: 'v1',
    models: ALPHA_VIDEO_MODELS,
    defaultModel: ALPHA_DEFAULT_VIDEO_MODEL,
    aliases: ALPHA_VIDEO_ALIASES,
    preflight: (ctx) => checkAlphaCredential(ctx, id),
    plan: (ctx, request) => planAlphaVideo(ctx, request, planner(ctx)),
    // The planner is called as the clip starts: a crash before the operation is recorded is not sent again by itself.
    reachesUpstreamAtStart: true,
    pollIntervalsMs: (ctx) => {
      const single = envMs(ctx, 'SVC_VIDEO_POLL_MS');
      return single ? [single] : POLL_INTERVALS_MS;
    },
    budgetMs: (ctx) => phaseBudgetMs(ctx, 'planner') + (envMs(ctx, 'SVC_VIDEO_TIMEOUT_MS') ?? CLIP_TIMEOUT_MS),
    async start(ctx, clip, job) {
      const client = await alphaClient(ctx, id, job.signal);
      const planned = await planPrompt(
        client.step('planner'),
        clip.plannerModel ?? planner(ctx),
        clip.prompt,
        EMPTY_SEARCH,
        clip.images.length,
      );
      const { endpoint, body } = await clipCall(clip, planned.prompt);
      job.rendering();
      const upstreamId = await createVideoJob(ctx, id, job.signal, endpoint, body);
      return { operation: { upstreamId }, id: upstreamId, state: 'pending', revisedPrompt: planned.prompt };
    },
    async status(ctx, _clip, operation, job) {
      const { upstreamId } = alphaOperation.parse(operation);
      try {
        const poll = await pollVideoJob(ctx, id, job.signal, upstreamId);
        if (poll.state === 'pending')
          return { done: false, state: poll.status, ...(poll.fraction !== undefined ? { fraction: poll.fraction } : {}) };
        return {
          done: true,
          state: 'done',
          output: { bytes: await downloadVideo(ctx, id, job.signal, poll.url) },
          ...(poll.costUsd !== undefined ? { costUsd: poll.costUsd } : {}),
        };
      } catch (error) {
        // A poll or a download lost to the network or a vendor hiccup is tried again at the next
        // interval, within the deadline (the done job answers its link again).
        if (!job.signal.aborted && error instanceof ServiceError && error.details?.retryable === true)
          return { done: false, state: 'unreachable' };
        throw error;
      }
    },
    timeout: (clip, operation) =>
      new ServiceError(
        'VIDEO_TIMEOUT',
        `Clip ${clip.index + 1} of ${clip.clips} did not finish within the job's time budget (SVC_VIDEO_TIMEOUT_MS per clip).`,
        {
          details: { lane: id, clip: clip.index + 1, upstreamId: alphaOperation.safeParse(operation).data?.upstreamId ?? null },
        },
      ),
    frames: alphaFrameDescriber(id, planner),
  };
}
