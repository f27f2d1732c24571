import { ServiceError } from '../errors.js';
import {
  storyboardShape,
  type VideoEditRequest,
  type VideoExtendRequest,
  type VideoGenerateRequest,
  type VideoJobRequest,
} from '../api/index.js';
import type { StudioContext } from '../context.js';
import type { JobSpec } from '../jobs/running-job.js';
import { planByLimits } from '../lanes/video-limits.js';
import type { VideoPlan, VideoPlanRequest } from '../lanes/video-model.js';
import { describeInput, loadReferences } from '../references.js';
import { historyVideoRow, historyVideoSeconds } from './history-video.js';
import { videoTarget, type VideoTarget } from './target.js';

// From a video request to a video job: the lane and model (target.ts), the
// storyboard's clips, then the lane's plan (its own rules, else its models'
// declared limits: mode, durations, resolution, aspect ratio, options), the
// input images; every refusal before the job is accepted (so it is a plain
// JSON answer whatever the delivery). Edits and extensions take a generated
// MP4 of history; a remote extension source is fetched first (remote.ts) and
// kept in history like any video.

/** A storyboard's clips, checked (STORYBOARD_INVALID names the problem). */
function storyboardOf(value: unknown): { prompt: string; duration?: number }[] {
  const parsed = storyboardShape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServiceError(
      'STORYBOARD_INVALID',
      `storyboard${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message} (shape: { clips: [{ prompt, duration? }, ...] }, 2 to 8 clips).`,
      {
        details: { field: ['storyboard', ...issue.path.map(String)].join('.') },
      },
    );
  }
  return parsed.data.clips;
}

type PlanFields = Omit<VideoPlanRequest, 'model' | 'requested' | 'options' | 'storyboard' | 'references'> &
  Partial<Pick<VideoPlanRequest, 'storyboard' | 'references'>>;

/** The lane's plan of a request: its own rules, else its models' declared limits. */
function planOf(
  ctx: StudioContext,
  target: VideoTarget,
  fields: PlanFields,
  body: { plannerModel?: string; options?: Readonly<Record<string, unknown>> },
): VideoPlan {
  const request: VideoPlanRequest = {
    storyboard: false,
    references: 0,
    ...fields,
    model: target.model,
    requested: target.requested,
    ...(body.plannerModel ? { plannerModel: body.plannerModel } : {}),
    options: body.options ?? {},
  };
  const { video } = target.lane;
  return video.plan ? video.plan(ctx, request) : planByLimits(request, video.options);
}

/** Edit and extend need a model that declares them (checked before the source is read or fetched). */
function requireOperation(target: VideoTarget, operation: 'edit' | 'extend'): void {
  if (!target.model.limits[operation]) {
    const valid = target.lane.video.models.filter((model) => model.limits[operation]).map((model) => model.id);
    throw new ServiceError(
      'VIDEO_OPERATION_UNSUPPORTED',
      `${target.model.id} on the ${target.lane.id} lane does not ${operation} videos${valid.length ? ` (${valid.join(', ')} do)` : ''}.`,
      {
        details: { field: 'model', lane: target.lane.id, model: target.model.id, operation, valid },
      },
    );
  }
}

/** The stored request of a planned job. */
function jobRequest(
  target: VideoTarget,
  operation: VideoJobRequest['operation'],
  plan: VideoPlan,
  inputs: VideoJobRequest['inputs'],
  storyboard = false,
): VideoJobRequest {
  return {
    operation,
    lane: target.lane.id,
    ...(plan.plannerModel ? { plannerModel: plan.plannerModel } : {}),
    ...(plan.resolution ? { resolution: plan.resolution } : {}),
    ...(plan.aspectRatio ? { aspectRatio: plan.aspectRatio } : {}),
    ...(plan.options && Object.keys(plan.options).length > 0 ? { options: plan.options } : {}),
    clips: [...plan.clips],
    storyboard,
    inputs,
  };
}

/** POST /api/video/generate: one clip, or a storyboard's clips. */
export async function planVideoGenerate(ctx: StudioContext, body: VideoGenerateRequest, requestId: string): Promise<JobSpec<'video'>> {
  const target = videoTarget(ctx, body);
  const storyboard = body.storyboard === undefined ? undefined : storyboardOf(body.storyboard);
  if (!storyboard && !body.prompt)
    throw new ServiceError('BAD_REQUEST', 'prompt is required (or a storyboard).', { details: { field: 'prompt' } });
  const references = body.references ?? [];
  const clips = storyboard
    ? storyboard.map((clip, index) => ({
        prompt: body.prompt ? `${body.prompt}\n${clip.prompt}` : clip.prompt,
        duration: clip.duration ?? body.duration,
        field: `storyboard.clips.${index}.duration`,
      }))
    : [{ prompt: body.prompt as string, duration: body.duration, field: 'duration' }];
  // The reference count is checked by the plan first (before any decoding); then each image is.
  const plan = planOf(
    ctx,
    target,
    {
      operation: 'generate',
      clips,
      storyboard: storyboard !== undefined,
      references: references.length,
      resolution: body.resolution,
      aspectRatio: body.aspectRatio,
    },
    body,
  );
  const images = await loadReferences(ctx, references, { lane: target.lane.id, max: references.length });
  return {
    requestId,
    kind: 'video',
    lane: target.lane.id,
    model: plan.clips[0].model.id,
    request: jobRequest(target, 'generate', plan, { references: images.map(describeInput) }, storyboard !== undefined),
    inputs: { references: images },
    inputImages: images,
  };
}

/** POST /api/video/edit: video-to-video on a history MP4. */
export async function planVideoEdit(ctx: StudioContext, body: VideoEditRequest, requestId: string): Promise<JobSpec<'video'>> {
  const target = videoTarget(ctx, body);
  requireOperation(target, 'edit');
  const source = await historyVideoRow(ctx, body.video);
  const seconds = await historyVideoSeconds(ctx, source);
  const plan = planOf(
    ctx,
    target,
    { operation: 'edit', clips: [{ prompt: body.prompt, field: 'duration' }], source: { filename: source.filename, seconds } },
    body,
  );
  return {
    requestId,
    kind: 'video',
    lane: target.lane.id,
    model: plan.clips[0].model.id,
    request: jobRequest(target, 'edit', plan, { references: [], source: source.filename }),
  };
}

/**
 * POST /api/video/extend: a history MP4 continued. A remote source (`url`) is imported by
 * `importUrl` once everything else is checked, so a refused request keeps nothing.
 */
export async function planVideoExtend(
  ctx: StudioContext,
  body: VideoExtendRequest,
  requestId: string,
  importUrl: (url: string) => Promise<string>,
): Promise<JobSpec<'video'>> {
  const target = videoTarget(ctx, body);
  requireOperation(target, 'extend');
  const plan = planOf(
    ctx,
    target,
    { operation: 'extend', clips: [{ prompt: body.prompt, duration: body.duration, field: 'duration' }] },
    body,
  );
  const source = await historyVideoRow(ctx, body.video ?? (await importUrl(body.url as string)));
  return {
    requestId,
    kind: 'video',
    lane: target.lane.id,
    model: plan.clips[0].model.id,
    request: jobRequest(target, 'extend', plan, { references: [], source: source.filename }),
  };
}
