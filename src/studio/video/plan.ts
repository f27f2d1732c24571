import { ServiceError } from '../errors.js';
import { EDIT_SOURCE_MAX_SECONDS, storyboardShape, type VideoClipPlan, type VideoEditRequest, type VideoExtendRequest, type VideoGenerateRequest } from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { JobSpec } from '../jobs/running-job.js';
import { describeInput, loadReferences } from '../references.js';
import { historyVideoRow, historyVideoSeconds } from './history-video.js';
import { checkAspectRatio, checkDuration, checkResolution, modeOf } from './rules.js';
import { baseModel, videoTarget } from './target.js';

// From a video request to a video job: lane, model, planner, the mode and
// its rules, the input images, every refusal before the job is accepted (so
// it is a plain JSON answer whatever the delivery). Edits and extensions
// take a generated MP4 of history; a remote extension source is fetched first
// (remote.ts) and kept in history like any video.


/** A storyboard's clips, checked (STORYBOARD_INVALID names the problem). */
function storyboardOf(value: unknown): { prompt: string; duration?: number }[] {
  const parsed = storyboardShape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServiceError('STORYBOARD_INVALID', `storyboard${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message} (shape: { clips: [{ prompt, duration? }, ...] }, 2 to 8 clips).`, {
      details: { field: ['storyboard', ...issue.path.map(String)].join('.') },
    });
  }
  return parsed.data.clips;
}

/** POST /api/video/generate: one clip, or a storyboard's clips. */
export async function planVideoGenerate(ctx: StudioContext, body: VideoGenerateRequest, requestId: string): Promise<JobSpec<'video'>> {
  const target = videoTarget(ctx, body);
  const requested = target.model.requested === 'alpha-video-1.5-preview' ? 'alpha-video-1.5' : target.model.id;
  const storyboard = body.storyboard === undefined ? undefined : storyboardOf(body.storyboard);
  if (!storyboard && !body.prompt) throw new ServiceError('BAD_REQUEST', 'prompt is required (or a storyboard).', { details: { field: 'prompt' } });
  const references = body.references ?? [];
  const mode = modeOf(references.length);
  const aspectRatio = checkAspectRatio(body.aspectRatio);
  const resolution = checkResolution(body.resolution, mode, requested);
  const planned = (prompt: string, duration: number | undefined, clipMode: typeof mode, field: string): VideoClipPlan => ({
    prompt,
    duration: checkDuration(duration, clipMode, requested, field),
    mode: clipMode,
    model: clipMode === 'reference-to-video' ? baseModel(target) : target.model,
  });
  const clips = storyboard
    ? storyboard.map((clip, index) => planned(body.prompt ? `${body.prompt}\n${clip.prompt}` : clip.prompt, clip.duration ?? body.duration, index === 0 ? mode : 'image-to-video', `storyboard.clips.${index}.duration`))
    : [planned(body.prompt as string, body.duration, mode, 'duration')];
  // Counted first (before any decoding) by the mode rule above; then each image is checked.
  const images = await loadReferences(ctx, references, { lane: target.lane.id, max: references.length });
  return {
    requestId,
    kind: 'video',
    lane: target.lane.id,
    model: clips[0].model.id,
    request: {
      operation: 'generate',
      lane: target.lane.id,
      plannerModel: target.plannerModel,
      resolution,
      ...(aspectRatio ? { aspectRatio } : {}),
      clips,
      storyboard: storyboard !== undefined,
      inputs: { references: images.map(describeInput) },
    },
    inputs: { references: images },
    inputImages: images,
  };
}

/** POST /api/video/edit: video-to-video on the base model. */
export async function planVideoEdit(ctx: StudioContext, body: VideoEditRequest, requestId: string): Promise<JobSpec<'video'>> {
  const target = videoTarget(ctx, body);
  const source = historyVideoRow(ctx, body.video);
  const seconds = await historyVideoSeconds(ctx, source);
  if (seconds > EDIT_SOURCE_MAX_SECONDS) {
    throw new ServiceError('VIDEO_SOURCE_TOO_LONG', `A video-to-video edit takes a source of at most ${EDIT_SOURCE_MAX_SECONDS} s; ${source.filename} lasts ${seconds} s.`, { details: { field: 'video', max: EDIT_SOURCE_MAX_SECONDS, got: seconds } });
  }
  const model = baseModel(target);
  return {
    requestId,
    kind: 'video',
    lane: target.lane.id,
    model: model.id,
    request: { operation: 'edit', lane: target.lane.id, plannerModel: target.plannerModel, clips: [{ prompt: body.prompt, duration: Math.max(1, Math.round(seconds)), mode: 'video-to-video', model }], storyboard: false, inputs: { references: [], source: source.filename } },
  };
}

/**
 * POST /api/video/extend: from the last frame of a history MP4, on the base model. A remote source
 * (`url`) is imported by `importUrl` once everything else is checked, so a refused request keeps nothing.
 */
export async function planVideoExtend(ctx: StudioContext, body: VideoExtendRequest, requestId: string, importUrl: (url: string) => Promise<string>): Promise<JobSpec<'video'>> {
  const target = videoTarget(ctx, body);
  const model = baseModel(target);
  const duration = checkDuration(body.duration, 'extension', model.requested);
  const source = historyVideoRow(ctx, body.video ?? (await importUrl(body.url as string)));
  return {
    requestId,
    kind: 'video',
    lane: target.lane.id,
    model: model.id,
    request: { operation: 'extend', lane: target.lane.id, plannerModel: target.plannerModel, clips: [{ prompt: body.prompt, duration, mode: 'extension', model }], storyboard: false, inputs: { references: [], source: source.filename } },
  };
}
