import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import type { AssetRecord, VideoClipPlan, VideoResult } from '../api/index.js';
import { recordOf } from '../assets.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import type { JobContext, JobHandler } from '../jobs/handlers.js';
import { runSteps, type Steps } from '../jobs/steps.js';
import type { LaneInputImage, UpstreamOperation } from '../lanes/types.js';
import type { VideoClipRequest, VideoJob, VideoModel, VideoSource } from '../lanes/video-model.js';
import { concatVideos, extractFrame, withTempDir } from '../media/video/index.js';
import type { ReferenceImage } from '../references.js';
import { downloadVideoOutput } from './download.js';
import { copyHistoryVideo, historyVideoBytes, historyVideoRow, historyVideoSeconds, withHistoryVideo } from './history-video.js';
import { saveVideoAsset } from './save-video.js';

// The handler of video jobs (kind `video`), over any lane's video model
// (lanes/video-model.ts): each clip is started by the lane (its planner, its
// submit), then polled as engine steps (jobs/steps.ts: the lane's operation is
// the job's the moment it is known, polls are scheduled with the job's
// deadline, a restart continues from the operation), its MP4 taken (bytes, or
// a link downloaded here) and saved. A storyboard runs its clips in order,
// each after the first starting from the last frame of the one before, then
// saves their join; an extension saves the source joined with the new part.
// Events: `planning`, `submitted`, `progress`…, per clip, then `done`.

/** What a video job holds in memory while the process that accepted it runs it: its decoded reference images. */
export interface VideoInputs {
  readonly references: readonly ReferenceImage[];
}

/** The job's stored operation: the clip under way, its upstream job (the lane's operation), and what is saved so far. */
const videoOperation = lazy(() =>
  z.object({
    clip: z.number().int().min(0),
    upstreamId: z.string().nullable(),
    /** The lane's operation of the clip under way (absent in jobs stored before lanes had video models: `{ upstreamId }`). */
    upstream: z.record(z.string(), z.unknown()).nullish(),
    /** Filenames of the clips saved so far, in order. */
    saved: z.array(z.string()),
    revisedPrompts: z.array(z.string()),
    costUsd: z.number(),
  }),
);
type VideoOperation = z.infer<typeof videoOperation>;

/** Progress that has not moved for this long is `stalled` (SVC_VIDEO_STALL_MS). */
const STALL_MS = 30_000;
/** Saving, joining and probing a clip, on top of its upstream time. */
const SAVE_BUDGET_MS = 60_000;

const envMs = (ctx: StudioContext, name: string, fallback: number): number => {
  const value = Number(ctx.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** The video model of a stored job's lane. */
function videoModelOf(lane: string): VideoModel {
  const video = (LANES as Readonly<Record<string, { video?: VideoModel }>>)[lane]?.video;
  if (!video) throw new ServiceError('VIDEO_PROVIDER_UNSUPPORTED', `The ${lane} lane no longer makes video.`, { details: { lane } });
  return video;
}

/** An asset of history as its record (the clips a resumed job saved before). */
async function savedRecord(ctx: StudioContext, filename: string): Promise<AssetRecord> {
  const row = await ctx.store.assets.find(filename);
  if (!row) throw new ServiceError('INTERNAL_ERROR', `The saved clip ${filename} is gone from history.`);
  return recordOf(row);
}

/** The last frame of a history MP4, as a PNG (a storyboard's continuity, an extension's start). */
const lastFrameOf = async (ctx: StudioContext, filename: string): Promise<LaneInputImage> => ({
  bytes: await withHistoryVideo(ctx, filename, (file, dir, durationSeconds) =>
    extractFrame(file, dir, 'last', durationSeconds, { env: ctx.env }),
  ),
  mime: 'image/png',
});

/** The inputs of a job that did not start where it was accepted: from the stored files. */
async function referencesOf(ctx: StudioContext, job: JobContext<'video'>): Promise<readonly ReferenceImage[]> {
  if (job.inputs) return job.inputs.references;
  return Promise.all(job.request.inputs.references.map((descriptor) => ctx.jobs.inputs.load(descriptor)));
}

/** An edit's or extension's history MP4, read when the lane asks. */
const sourceOf = (ctx: StudioContext, filename: string): VideoSource => ({
  filename,
  seconds: async () => historyVideoSeconds(ctx, await historyVideoRow(ctx, filename)),
  mp4: () => historyVideoBytes(ctx, filename),
  lastFrame: () => lastFrameOf(ctx, filename),
});

/** Clip `index` as the lane's steps receive it (its images are added at its start). */
function clipRequest(ctx: StudioContext, job: JobContext<'video'>, index: number): VideoClipRequest {
  const { request } = job;
  const clip = request.clips[index];
  return {
    requestId: job.requestId,
    operation: request.operation,
    index,
    clips: request.clips.length,
    prompt: clip.prompt,
    duration: clip.duration,
    mode: clip.mode,
    model: clip.model,
    ...(request.resolution ? { resolution: request.resolution } : {}),
    ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
    ...(request.plannerModel ? { plannerModel: request.plannerModel } : {}),
    options: request.options ?? {},
    images: [],
    ...(request.inputs.source ? { source: sourceOf(ctx, request.inputs.source) } : {}),
  };
}

/** The clip's input images: a storyboard's later clip starts from the last frame of the one before. */
async function clipImages(
  ctx: StudioContext,
  job: JobContext<'video'>,
  clip: VideoClipRequest,
  state: VideoOperation,
): Promise<readonly LaneInputImage[]> {
  if (clip.index > 0) return [await lastFrameOf(ctx, state.saved[clip.index - 1])];
  if (clip.mode !== 'image-to-video' && clip.mode !== 'reference-to-video') return [];
  const references = await referencesOf(ctx, job);
  return clip.mode === 'image-to-video' ? references.slice(0, 1) : references;
}

interface ClipOutput {
  readonly bytes: Buffer;
  readonly costUsd: number | undefined;
  readonly settings: Readonly<Record<string, unknown>> | undefined;
}

/** One clip's steps: the lane's start (planning, submit), then one lane status per engine step, the MP4 when done. */
function clipSteps(
  ctx: StudioContext,
  job: JobContext<'video'>,
  video: VideoModel,
  index: number,
  state: () => VideoOperation,
): Steps<ClipOutput> {
  const { request, requestId, events } = job;
  const lane = request.lane;
  const plan: VideoClipPlan = request.clips[index];
  const clip = clipRequest(ctx, job, index);
  const where = { requestId, kind: 'video' as const, clip: index + 1, clips: request.clips.length };
  const stallMs = envMs(ctx, 'SVC_VIDEO_STALL_MS', STALL_MS);
  // Kept across the job's parks: a stall is measured over many status calls.
  const moved = job.keep(`progress-${index}`, () => ({ fraction: 0, at: Date.now() }));
  const progress = (upstreamState: string, next?: number) => {
    if (next !== undefined && next > moved.fraction) {
      moved.fraction = Math.min(1, next);
      moved.at = Date.now();
    }
    events.progress({ ...where, fraction: moved.fraction, stalled: Date.now() - moved.at >= stallMs, upstreamState });
  };
  const handle: VideoJob = {
    signal: job.signal,
    deadline: job.deadline,
    rendering: () => job.recordPhase('rendering'),
    // Work before the submit (uploads): its own fraction is not the clip's, which starts at the submit.
    progress: (update) => progress(update.fraction === undefined ? update.state : `${update.state} ${Math.round(update.fraction * 100)}%`),
    sending: () => job.sending(),
  };
  /** The lane's operation of a stored job's clip (one stored before lanes had video models: its upstream id). */
  const upstreamOf = (stored: UpstreamOperation): UpstreamOperation => {
    const operation = videoOperation.parse(stored);
    return operation.upstream ?? { upstreamId: operation.upstreamId };
  };
  return {
    pollIntervalsMs: video.pollIntervalsMs(ctx),
    async start() {
      job.recordPhase('planning');
      events.planning({
        ...where,
        provider: lane,
        model: plan.model.id,
        ...(request.plannerModel ? { plannerModel: request.plannerModel } : {}),
      });
      const started = await video.start(ctx, { ...clip, images: await clipImages(ctx, job, clip, state()) }, handle);
      events.submitted({
        ...where,
        provider: lane,
        upstreamId: started.id,
        requestedModel: plan.model.requested,
        model: plan.model.id,
        mode: plan.mode,
      });
      moved.at = Date.now();
      const current = state();
      const revised = started.revisedPrompt ?? plan.prompt;
      const operation: VideoOperation = {
        ...current,
        clip: index,
        upstreamId: started.id,
        upstream: started.operation,
        revisedPrompts: [...current.revisedPrompts.slice(0, index), revised],
      };
      return { operation, id: started.id, state: started.state ?? 'pending' };
    },
    async status(stored) {
      const answer = await video.status(ctx, clip, upstreamOf(stored), handle);
      if (!answer.done) {
        progress(answer.state, answer.fraction);
        return { done: false, state: answer.state, ...(answer.retryAfterMs !== undefined ? { retryAfterMs: answer.retryAfterMs } : {}) };
      }
      progress('done', 1);
      job.recordPhase('saving');
      let bytes: Buffer;
      if ('bytes' in answer.output) bytes = answer.output.bytes;
      else {
        try {
          bytes = await downloadVideoOutput(ctx, lane, answer.output, job.signal, Math.max(1, job.deadline - Date.now()));
        } catch (error) {
          // A download lost to the network is tried again at the next interval (the done job answers its link again).
          if (!job.signal.aborted && error instanceof ServiceError && error.details?.retryable === true) {
            progress('unreachable');
            return { done: false, state: 'unreachable' };
          }
          throw error;
        }
      }
      return { done: true, state: answer.state ?? 'done', result: { bytes, costUsd: answer.costUsd, settings: answer.settings } };
    },
    ...(video.cancel
      ? { cancel: (stored: UpstreamOperation) => (video.cancel as NonNullable<VideoModel['cancel']>)(ctx, upstreamOf(stored)) }
      : {}),
    timeout: (stored) => video.timeout(clip, stored ? upstreamOf(stored) : null),
  };
}

/** The asset metadata of one saved output. */
function metadataOf(
  job: JobContext<'video'>,
  clip: VideoClipPlan,
  prompt: string,
  revisedPrompt: string | undefined,
  settings: Record<string, unknown>,
) {
  return {
    prompt,
    lane: job.request.lane,
    model: clip.model.id,
    requestId: job.requestId,
    kind: 'video' as const,
    settings: {
      operation: job.request.operation,
      mode: clip.mode,
      requestedModel: clip.model.requested,
      upstreamModel: clip.model.upstreamId,
      ...(job.request.plannerModel ? { plannerModel: job.request.plannerModel } : {}),
      ...settings,
    },
    ...(revisedPrompt ? { revisedPrompt } : {}),
  };
}

/** Joins MP4s in order (history filenames, or bytes at hand) into new bytes. */
async function joined(ctx: StudioContext, parts: readonly (string | Buffer)[], signal: AbortSignal): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const files: string[] = [];
    for (const [index, part] of parts.entries()) {
      const file = join(dir, `part-${index}.mp4`);
      await (typeof part === 'string' ? copyHistoryVideo(ctx, part, file) : writeFile(file, part));
      files.push(file);
    }
    const out = join(dir, 'joined.mp4');
    await concatVideos(files, out, dir, { env: ctx.env, signal });
    return readFile(out);
  });
}

async function runVideo(ctx: StudioContext, job: JobContext<'video'>): Promise<VideoResult> {
  const started = performance.now();
  const { request } = job;
  let state: VideoOperation = job.operation
    ? videoOperation.parse(job.operation)
    : { clip: 0, upstreamId: null, saved: [], revisedPrompts: [], costUsd: 0 };
  let upstreamMs = 0;
  let saveMs = 0;
  /** Stores the operation; `id` stays the last upstream job's (what the job record shows). */
  const record = async (next: VideoOperation, id: string, stateName: string | null) => {
    state = next;
    await job.recordOperation(state, id, stateName);
  };
  const lane = videoModelOf(request.lane);
  for (let index = state.saved.length; index < request.clips.length; index += 1) {
    const clip = request.clips[index];
    const resumed = state.upstreamId !== null && state.clip === index;
    const clipJob: JobContext<'video'> = {
      ...job,
      // Read when asked: shutdown may detach the job while its clip runs.
      get detached() {
        return job.detached;
      },
      operation: resumed ? state : null,
      polls: resumed ? job.polls : 0,
      recordOperation: (operation, id, upstreamState) => record(videoOperation.parse(operation), id, upstreamState),
    };
    const upstreamStarted = performance.now();
    const output = await runSteps(
      clipJob,
      clipSteps(ctx, job, lane, index, () => state),
    );
    upstreamMs += performance.now() - upstreamStarted;
    if (job.signal.aborted) throw job.signal.reason;
    const saveStarted = performance.now();
    const costUsd = state.costUsd + (output.costUsd ?? 0);
    // An extension's new part is not kept alone: the saved video is the source with it joined.
    const keepsClip = request.operation !== 'extend';
    const settings = {
      clip: index + 1,
      clips: request.clips.length,
      duration: clip.duration,
      upstreamId: state.upstreamId,
      ...(request.resolution ? { resolution: request.resolution } : {}),
      ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
      ...(request.options ? { options: request.options } : {}),
      ...output.settings,
      ...(output.costUsd !== undefined ? { costUsd: output.costUsd } : {}),
    };
    const bytes = keepsClip ? output.bytes : await joined(ctx, [request.inputs.source as string, output.bytes], job.signal);
    const asset = await saveVideoAsset(ctx, {
      bytes,
      metadata: metadataOf(
        job,
        clip,
        clip.prompt,
        state.revisedPrompts[index],
        keepsClip ? settings : { ...settings, extendedBy: clip.duration },
      ),
      ...(request.inputs.source ? { derivedFrom: request.inputs.source } : {}),
    });
    saveMs += performance.now() - saveStarted;
    await record(
      { ...state, clip: index + 1, upstreamId: null, upstream: null, saved: [...state.saved, asset.filename], costUsd },
      state.upstreamId ?? asset.filename,
      'saved',
    );
  }
  const clips = await Promise.all(state.saved.map((filename) => savedRecord(ctx, filename)));
  let video = clips[clips.length - 1];
  if (request.storyboard) {
    const saveStarted = performance.now();
    const bytes = await joined(ctx, state.saved, job.signal);
    const shared = request.clips.map((clip) => clip.prompt).join(' / ');
    video = await saveVideoAsset(ctx, {
      bytes,
      metadata: metadataOf(job, request.clips[0], shared, undefined, {
        storyboard: true,
        clips: clips.map((entry) => entry.filename),
        costUsd: state.costUsd,
      }),
    });
    saveMs += performance.now() - saveStarted;
  }
  const last = request.clips[request.clips.length - 1];
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    requestId: job.requestId,
    provider: request.lane,
    operation: request.operation,
    model: last.model.id,
    ...(last.model.requested !== last.model.id ? { requestedModel: last.model.requested } : {}),
    mode: request.clips[0].mode,
    video,
    ...(request.storyboard ? { clips } : {}),
    revisedPrompts: state.revisedPrompts,
    settings: {
      ...(request.plannerModel ? { plannerModel: request.plannerModel } : {}),
      ...(request.resolution ? { resolution: request.resolution } : {}),
      ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
      costUsd: state.costUsd,
    },
    timings: { upstreamMs: round(upstreamMs), saveMs: round(saveMs), totalMs: round(performance.now() - started) },
  };
}

export const videoJobHandler: JobHandler<'video'> = {
  // Once an upstream job id (or a saved clip) is recorded, a restart continues from it.
  canResume: (job) => job.operation !== null,
  // A lane whose start calls upstream at once (a planner): a crash before the operation is recorded is not sent again by itself.
  reachesUpstreamAtStart: (job) => videoModelOf(job.request.lane).reachesUpstreamAtStart,
  budgetMs: (ctx, job) => job.request.clips.length * (videoModelOf(job.request.lane).budgetMs(ctx) + SAVE_BUDGET_MS),
  run: (ctx, job) => runVideo(ctx, job),
};
