import type { LaneEnv } from '../env.js';
import { settingOf } from '../settings.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule } from '../types.js';
import { alphaClient, type AlphaLaneId } from './call.js';
import { alphaPixelSize, type AlphaPlanner } from './controls.js';
import { downloadImage } from './download.js';
import { createImage } from './images.js';
import { ALPHA_PHASES } from './phases.js';
import { planPrompt, searchWeb } from './planner.js';
import type { AlphaOptions } from './options.js';
import { alphaSelection } from './sizes.js';

// One alpha job (spec: Alpha pipeline): the mandatory web search, the planner
// pass yielding the English final prompt, then the image, each its own phase
// with its own budget. The final prompt is the asset's revised prompt; the
// search's citations, the planner and the vendor's cost (USD) are in its
// settings, which the asset and its file metadata keep.

export async function runAlpha(
  ctx: LaneEnv,
  lane: LaneModule,
  request: LaneImageRequest<AlphaOptions>,
  job: LaneJob,
): Promise<LaneImageResult> {
  const laneId = lane.id as AlphaLaneId;
  const { options } = request;
  // Before any upstream call: a size and native options together are refused here.
  const selection = alphaSelection(request.size, options);
  const planner = options.plannerModel ?? settingOf<AlphaPlanner>(ctx, lane, 'plannerModel');
  const sources = request.image ? [request.image, ...request.references] : request.references;
  const client = await alphaClient(ctx, laneId, job.signal);

  job.phase(ALPHA_PHASES.search.jobPhase);
  const search = await searchWeb(client.step('search'), planner, request.prompt);
  job.phase(ALPHA_PHASES.planner.jobPhase);
  const planned = await planPrompt(client.step('planner'), planner, request.prompt, search, sources.length);
  job.phase(ALPHA_PHASES.image.jobPhase);
  const imageCall = client.step('image');
  const answer = await createImage(imageCall, {
    model: request.model.upstreamId,
    prompt: planned.prompt,
    selection,
    quality: request.quality,
    sources,
  });
  const image =
    answer.output.kind === 'inline'
      ? answer.output.image
      : await downloadImage(imageCall, answer.output.url, new URL(ctx.upstreamUrl(laneId)).origin);

  const inputTokens = search.usage.inputTokens + planned.usage.inputTokens;
  const outputTokens = search.usage.outputTokens + planned.usage.outputTokens;
  return {
    images: [image],
    revisedPrompt: planned.prompt,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    settings: {
      action: sources.length ? 'edit' : 'generate',
      upstreamModel: request.model.upstreamId,
      plannerModel: planner,
      aspectRatio: sources.length === 1 ? 'source' : selection.aspectRatio,
      resolution: selection.resolution,
      ...(sources.length === 1 ? {} : { size: alphaPixelSize(selection.aspectRatio, selection.resolution) }),
      ...(selection.requestedSize ? { requestedSize: selection.requestedSize } : {}),
      ...(request.quality ? { quality: request.quality } : {}),
      references: request.references.length,
      inputImages: sources.length,
      output: answer.output.kind === 'link' ? 'url' : 'b64_json',
      citations: search.citations,
      ...(answer.costUsd !== undefined ? { costUsd: answer.costUsd } : {}),
      ...(answer.revisedPrompt && answer.revisedPrompt !== planned.prompt ? { upstreamRevisedPrompt: answer.revisedPrompt } : {}),
    },
  };
}
