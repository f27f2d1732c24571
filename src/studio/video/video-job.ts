import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { ServiceError } from '../errors.js';
import { loadSharp } from '../../common/sharp.js';
import type { AssetRecord, VideoClipPlan, VideoResult } from '../api/index.js';
import { recordOf } from '../assets.js';
import type { StudioContext } from '../context.js';
import type { JobContext, JobHandler } from '../jobs/handlers.js';
import { runSteps, type Steps } from '../jobs/steps.js';
import { alphaClient, type AlphaLaneId } from '../lanes/alpha/call.js';
import { phaseBudgetMs } from '../lanes/alpha/phases.js';
import { planPrompt } from '../lanes/alpha/planner.js';
import { concatVideos, extractFrame, withTempDir } from '../media/video/index.js';
import type { ReferenceImage } from '../references.js';
import { findAsset } from '../store/assets.js';
import { copyHistoryVideo, historyVideoBytes, withHistoryVideo } from './history-video.js';
import { saveVideoAsset } from './save-video.js';
import { createVideoJob, downloadVideo, pollVideoJob, type VideoEndpoint } from './upstream.js';

// The handler of video jobs (kind `video`): each clip is planned (the planner
// model writes its final prompt), submitted, then polled as engine steps
// (jobs/steps.ts: the upstream request_id is the job's operation the moment it
// is known, polls are scheduled with the job's deadline, a restart continues
// from the operation), downloaded and saved. A storyboard runs its clips in
// order, each after the first starting from the last frame of the one before,
// then saves their join; an extension saves the source joined with the new
// part. Events: `planning`, `submitted`, `progress`…, per clip, then `done`.

/** What a video job holds in memory while the process that accepted it runs it: its decoded reference images. */
export interface VideoInputs {
  readonly references: readonly ReferenceImage[];
}

/** The job's stored operation: the clip under way, its upstream job, and what is saved so far. */
const videoOperation = z.object({
  clip: z.number().int().min(0),
  upstreamId: z.string().nullable(),
  /** Filenames of the clips saved so far, in order. */
  saved: z.array(z.string()),
  revisedPrompts: z.array(z.string()),
  costUsd: z.number(),
});
type VideoOperation = z.infer<typeof videoOperation>;

/** Poll cadence: soon after the submit, then every 5 s (the contract's clients); SVC_VIDEO_POLL_MS sets one interval. */
const POLL_INTERVALS_MS = [1000, 2000, 3000, 5000] as const;
/** One clip's upstream time (the contract's clients wait 10 minutes); SVC_VIDEO_TIMEOUT_MS overrides it. */
const CLIP_TIMEOUT_MS = 10 * 60_000;
/** Progress that has not moved for this long is `stalled` (SVC_VIDEO_STALL_MS). */
const STALL_MS = 30_000;
/** Saving, joining and probing a clip, on top of its upstream time. */
const SAVE_BUDGET_MS = 60_000;

const envMs = (ctx: StudioContext, name: string, fallback: number): number => {
  const value = Number(ctx.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

const pollIntervals = (ctx: StudioContext): readonly number[] => {
  const single = Number(ctx.env.SVC_VIDEO_POLL_MS);
  return Number.isFinite(single) && single > 0 ? [single] : POLL_INTERVALS_MS;
};

const dataUrl = (mime: string, bytes: Buffer): string => `data:${mime};base64,${bytes.toString('base64')}`;

const EMPTY_SEARCH = { summary: '', citations: [], usage: { inputTokens: 0, outputTokens: 0 } } as const;

/** A plain canvas of the clip's ratio: alpha-video-1.5 starts from an image, so prompt-only text-to-video sends this (the spec's canvas shim). */
async function canvasShim(aspectRatio: string): Promise<Buffer> {
  const [w, h] = aspectRatio.split(':').map(Number);
  const sharp = await loadSharp();
  const [width, height] = [Math.round(w * 40), Math.round(h * 40)];
  return sharp(Buffer.alloc(width * height * 3, 128), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** An asset of history as its record (the clips a resumed job saved before). */
function savedRecord(ctx: StudioContext, filename: string): AssetRecord {
  const row = findAsset(ctx.db, filename);
  if (!row) throw new ServiceError('INTERNAL_ERROR', `The saved clip ${filename} is gone from history.`);
  return recordOf(row);
}

/** The last frame of a history MP4, as a PNG (a storyboard's continuity). */
const lastFrameOf = (ctx: StudioContext, filename: string): Promise<Buffer> =>
  withHistoryVideo(ctx, filename, (file, dir, durationSeconds) => extractFrame(file, dir, 'last', durationSeconds, { env: ctx.env }));

/** The inputs of a job that did not start where it was accepted: from the stored files. */
async function referencesOf(ctx: StudioContext, job: JobContext<'video'>): Promise<readonly ReferenceImage[]> {
  if (job.inputs) return job.inputs.references;
  return Promise.all(job.request.inputs.references.map((descriptor) => ctx.jobs.inputs.load(descriptor)));
}

/** The upstream endpoint and body of one clip. */
async function clipCall(ctx: StudioContext, job: JobContext<'video'>, index: number, prompt: string, state: VideoOperation): Promise<{ endpoint: VideoEndpoint; body: Record<string, unknown> }> {
  const { request } = job;
  const clip = request.clips[index];
  const base = { model: clip.model.upstreamId, prompt };
  if (request.operation === 'edit' || request.operation === 'extend') {
    const source = dataUrl('video/mp4', await historyVideoBytes(ctx, request.inputs.source as string));
    return request.operation === 'edit'
      ? { endpoint: 'edits', body: { ...base, video: { url: source } } }
      : { endpoint: 'extensions', body: { ...base, video: { url: source }, duration: clip.duration } };
  }
  const shape = { duration: clip.duration, ...(request.resolution ? { resolution: request.resolution } : {}), ...(request.aspectRatio ? { aspect_ratio: request.aspectRatio } : {}) };
  if (index > 0) return { endpoint: 'generations', body: { ...base, ...shape, image: { url: dataUrl('image/png', await lastFrameOf(ctx, state.saved[index - 1])) } } };
  const references = await referencesOf(ctx, job);
  if (clip.mode === 'reference-to-video') return { endpoint: 'generations', body: { ...base, ...shape, reference_images: references.map((image) => ({ url: dataUrl(image.mime, image.bytes) })) } };
  if (clip.mode === 'image-to-video') return { endpoint: 'generations', body: { ...base, ...shape, image: { url: dataUrl(references[0].mime, references[0].bytes) } } };
  // Text-to-video: the 1.5 model takes a first frame, so it gets a plain canvas of the ratio.
  if (clip.model.id === 'alpha-video-1.5') {
    const ratio = request.aspectRatio ?? '16:9';
    return { endpoint: 'generations', body: { ...base, ...shape, aspect_ratio: ratio, image: { url: dataUrl('image/png', await canvasShim(ratio)) } } };
  }
  return { endpoint: 'generations', body: { ...base, ...shape } };
}

interface ClipOutput {
  readonly bytes: Buffer;
  readonly costUsd: number | undefined;
}

/** One clip's steps: plan and submit (start), then one poll per status call, the download when done. */
function clipSteps(ctx: StudioContext, job: JobContext<'video'>, index: number, state: () => VideoOperation): Steps<ClipOutput> {
  const { request, requestId, events } = job;
  const lane = request.lane as AlphaLaneId;
  const clip: VideoClipPlan = request.clips[index];
  const where = { requestId, kind: 'video' as const, clip: index + 1, clips: request.clips.length };
  const stallMs = envMs(ctx, 'SVC_VIDEO_STALL_MS', STALL_MS);
  let fraction = 0;
  let movedAt = Date.now();
  return {
    pollIntervalsMs: pollIntervals(ctx),
    async start() {
      job.recordPhase('planning');
      events.planning({ ...where, provider: lane, model: clip.model.id, plannerModel: request.plannerModel });
      const client = await alphaClient(ctx, lane, job.signal);
      const inputImages = index > 0 || clip.mode === 'image-to-video' ? 1 : clip.mode === 'reference-to-video' ? request.inputs.references.length : 0;
      const planned = await planPrompt(client.step('planner'), request.plannerModel, clip.prompt, EMPTY_SEARCH, inputImages);
      const { endpoint, body } = await clipCall(ctx, job, index, planned.prompt, state());
      job.recordPhase('rendering');
      const upstreamId = await createVideoJob(ctx, lane, job.signal, endpoint, body);
      events.submitted({ ...where, provider: lane, upstreamId, requestedModel: clip.model.requested, model: clip.model.id, mode: clip.mode });
      movedAt = Date.now();
      const current = state();
      const operation: VideoOperation = { ...current, clip: index, upstreamId, revisedPrompts: [...current.revisedPrompts.slice(0, index), planned.prompt] };
      return { operation, id: upstreamId, state: 'pending' };
    },
    async status(stored) {
      const { upstreamId } = videoOperation.parse(stored);
      try {
        const poll = await pollVideoJob(ctx, lane, job.signal, upstreamId as string);
        if (poll.state === 'pending') {
          if (poll.fraction !== undefined && poll.fraction > fraction) {
            fraction = poll.fraction;
            movedAt = Date.now();
          }
          events.progress({ ...where, fraction, stalled: Date.now() - movedAt >= stallMs, upstreamState: poll.status });
          return { done: false, state: poll.status };
        }
        fraction = 1;
        events.progress({ ...where, fraction, stalled: false, upstreamState: 'done' });
        job.recordPhase('saving');
        return { done: true, state: 'done', result: { bytes: await downloadVideo(ctx, lane, job.signal, poll.url), costUsd: poll.costUsd } };
      } catch (error) {
        // A poll or a download lost to the network or a vendor hiccup is tried again at the next
        // interval, within the deadline (the done job answers its link again).
        if (!job.signal.aborted && error instanceof ServiceError && error.details?.retryable === true) {
          events.progress({ ...where, fraction, stalled: Date.now() - movedAt >= stallMs, upstreamState: 'unreachable' });
          return { done: false, state: 'unreachable' };
        }
        throw error;
      }
    },
    timeout: () =>
      new ServiceError('VIDEO_TIMEOUT', `Clip ${index + 1} of ${request.clips.length} did not finish within the job's time budget (SVC_VIDEO_TIMEOUT_MS per clip).`, {
        details: { lane, clip: index + 1, upstreamId: state().upstreamId },
      }),
  };
}

/** The asset metadata of one saved output. */
function metadataOf(job: JobContext<'video'>, clip: VideoClipPlan, prompt: string, revisedPrompt: string | undefined, settings: Record<string, unknown>) {
  return {
    prompt,
    lane: job.request.lane,
    model: clip.model.id,
    requestId: job.requestId,
    kind: 'video' as const,
    settings: { operation: job.request.operation, mode: clip.mode, requestedModel: clip.model.requested, upstreamModel: clip.model.upstreamId, plannerModel: job.request.plannerModel, ...settings },
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
  let state: VideoOperation = job.operation ? videoOperation.parse(job.operation) : { clip: 0, upstreamId: null, saved: [], revisedPrompts: [], costUsd: 0 };
  let upstreamMs = 0;
  let saveMs = 0;
  /** Stores the operation; `id` stays the last upstream job's (what the job record shows). */
  const record = async (next: VideoOperation, id: string, stateName: string | null) => {
    state = next;
    await job.recordOperation(state, id, stateName);
  };
  for (let index = state.saved.length; index < request.clips.length; index += 1) {
    const clip = request.clips[index];
    const resumed = state.upstreamId !== null && state.clip === index;
    const clipJob: JobContext<'video'> = {
      ...job,
      operation: resumed ? state : null,
      recordOperation: (operation, id, upstreamState) => record(videoOperation.parse(operation), id, upstreamState),
    };
    const upstreamStarted = performance.now();
    const output = await runSteps(clipJob, clipSteps(ctx, job, index, () => state));
    upstreamMs += performance.now() - upstreamStarted;
    if (job.signal.aborted) throw job.signal.reason;
    const saveStarted = performance.now();
    const costUsd = state.costUsd + (output.costUsd ?? 0);
    // An extension's new part is not kept alone: the saved video is the source with it joined.
    const keepsClip = request.operation !== 'extend';
    const settings = { clip: index + 1, clips: request.clips.length, duration: clip.duration, upstreamId: state.upstreamId, ...(request.resolution ? { resolution: request.resolution } : {}), ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}), ...(output.costUsd !== undefined ? { costUsd: output.costUsd } : {}) };
    const bytes = keepsClip ? output.bytes : await joined(ctx, [request.inputs.source as string, output.bytes], job.signal);
    const asset = await saveVideoAsset(ctx, {
      bytes,
      metadata: metadataOf(job, clip, clip.prompt, state.revisedPrompts[index], keepsClip ? settings : { ...settings, extendedBy: clip.duration }),
      ...(request.inputs.source ? { derivedFrom: request.inputs.source } : {}),
    });
    saveMs += performance.now() - saveStarted;
    await record({ ...state, clip: index + 1, upstreamId: null, saved: [...state.saved, asset.filename], costUsd }, state.upstreamId ?? asset.filename, 'saved');
  }
  const clips = state.saved.map((filename) => savedRecord(ctx, filename));
  let video = clips[clips.length - 1];
  if (request.storyboard) {
    const saveStarted = performance.now();
    const bytes = await joined(ctx, state.saved, job.signal);
    const shared = request.clips.map((clip) => clip.prompt).join(' / ');
    video = await saveVideoAsset(ctx, { bytes, metadata: metadataOf(job, request.clips[0], shared, undefined, { storyboard: true, clips: clips.map((entry) => entry.filename), costUsd: state.costUsd }) });
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
    settings: { plannerModel: request.plannerModel, ...(request.resolution ? { resolution: request.resolution } : {}), ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}), costUsd: state.costUsd },
    timings: { upstreamMs: round(upstreamMs), saveMs: round(saveMs), totalMs: round(performance.now() - started) },
  };
}

export const videoJobHandler: JobHandler<'video'> = {
  // Once an upstream job id (or a saved clip) is recorded, a restart continues from it.
  canResume: (job) => job.operation !== null,
  // The planner is called as the job starts: a crash before the operation is recorded is not sent again by itself.
  reachesUpstreamAtStart: () => true,
  budgetMs: (ctx, job) => job.request.clips.length * (phaseBudgetMs(ctx, 'planner') + envMs(ctx, 'SVC_VIDEO_TIMEOUT_MS', CLIP_TIMEOUT_MS) + SAVE_BUDGET_MS),
  run: (ctx, job) => runVideo(ctx, job),
};

