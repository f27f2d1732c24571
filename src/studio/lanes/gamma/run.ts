import type { StudioContext } from '../../context.js';
import { laneTimeoutMs } from '../budget.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule, UpstreamOperation } from '../types.js';
import { downloadOutput } from './output.js';
import { awaitPrediction, submitPrediction } from './prediction.js';
import { GAMMA_DEFAULTS, GAMMA_UPSTREAM_MODELS } from './protocol.js';
import { uploadReferences, type GammaCall } from './upload.js';

// One gamma job: upload the references, submit, poll, download (§2–4); or,
// after a restart, poll the recorded prediction and download. The lane's time
// budget (SVC_GAMMA_TIMEOUT_MS) covers the whole of it; a resumed job gets a
// fresh one.

export interface GammaOptions {
  readonly background?: 'auto' | 'opaque' | 'transparent';
}

function gammaCall(ctx: StudioContext, lane: LaneModule, key: string, job: LaneJob): { call: GammaCall; budgetMs: number } {
  const budgetMs = laneTimeoutMs(ctx, lane);
  const deadline = Date.now() + budgetMs;
  return { call: { baseUrl: ctx.upstreamUrl('gamma'), key, timeoutMs: () => Math.max(1, deadline - Date.now()), signal: job.signal }, budgetMs };
}

/** The settings a request runs with (§3): defaults filled in, a transparent background as PNG. */
function settingsOf(request: LaneImageRequest) {
  const background = (request.options as GammaOptions).background ?? GAMMA_DEFAULTS.background;
  return {
    size: request.size ?? GAMMA_DEFAULTS.size,
    quality: request.quality ?? GAMMA_DEFAULTS.quality,
    // Transparency needs an alpha channel: the vendor makes it as PNG whatever format was asked.
    format: background === 'transparent' ? 'png' : request.format,
    background,
  };
}

async function finish(call: GammaCall, id: string, job: LaneJob, budgetMs: number, settings: Record<string, unknown>): Promise<LaneImageResult> {
  job.phase('rendering');
  const finished = await awaitPrediction(call, id, job, budgetMs);
  const image = await downloadOutput(finished.output, { baseUrl: call.baseUrl, timeoutMs: call.timeoutMs(), signal: call.signal });
  return { images: [image], settings: { ...settings, ...(finished.model ? { upstreamModel: finished.model } : {}), predictionId: id } };
}

/** A generation or an edit: the edit model when there are input images (an edited image first). */
export async function gammaRun(ctx: StudioContext, lane: LaneModule, key: string, request: LaneImageRequest, job: LaneJob): Promise<LaneImageResult> {
  const { call, budgetMs } = gammaCall(ctx, lane, key, job);
  const settings = settingsOf(request);
  const inputs = request.image ? [request.image, ...request.references] : request.references;
  const upstreamModel = inputs.length ? GAMMA_UPSTREAM_MODELS.edit : GAMMA_UPSTREAM_MODELS.textToImage;
  job.phase('planning');
  const images = await uploadReferences(call, inputs);
  const body = {
    model: upstreamModel,
    prompt: request.prompt,
    size: settings.size,
    quality: settings.quality,
    output_format: settings.format,
    background: settings.background,
    // Outputs are links, and the answer comes by polling.
    enable_base64_output: false,
    enable_sync_mode: false,
    ...(images.length ? { images } : {}),
  };
  const id = await submitPrediction(call, body, job);
  return finish(call, id, job, budgetMs, { upstreamModel, ...settings, references: inputs.length });
}

/** After a restart: the recorded prediction, polled to its end (no inputs are needed any more). */
export async function gammaResume(ctx: StudioContext, lane: LaneModule, key: string, request: LaneImageRequest, operation: UpstreamOperation, job: LaneJob): Promise<LaneImageResult> {
  const { call, budgetMs } = gammaCall(ctx, lane, key, job);
  return finish(call, operation.operationId, job, budgetMs, { ...settingsOf(request), resumed: true });
}
