import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import type { LaneEnv } from '../env.js';
import type { LaneImageRequest, LaneJob, LaneSteps, StepStatus } from '../types.js';
import { budgetSpent } from './errors.js';
import type { GammaOptions } from './options.js';
import { downloadOutput } from './output.js';
import { readPrediction, submitPrediction } from './prediction.js';
import { GAMMA_DEFAULTS, GAMMA_POLL_INTERVALS_MS, GAMMA_UPSTREAM_MODELS } from './protocol.js';
import { uploadReferences, type GammaCall } from './upload.js';

// One gamma job as steps: start uploads the references and submits (§2–3),
// each status call reads the prediction and, once it is done, downloads the
// output (§4). The job's stored deadline (SVC_GAMMA_TIMEOUT_MS from its first
// start) bounds every call, a resumed one included.

/** What the job stores of a gamma generation. */
const gammaOperation = lazy(() => z.object({ predictionId: z.string().min(1), upstreamModel: z.string(), references: z.number().int() }));
type GammaOperation = z.infer<typeof gammaOperation>;

const gammaCall = (ctx: LaneEnv, key: string, job: LaneJob): GammaCall => ({
  baseUrl: ctx.upstreamUrl('gamma'),
  key,
  timeoutMs: () => Math.max(1, job.deadline - Date.now()),
  signal: job.signal,
});

/** The settings a request runs with (§3): defaults filled in, a transparent background as PNG. */
function settingsOf(request: LaneImageRequest<GammaOptions>) {
  const background = request.options.background ?? GAMMA_DEFAULTS.background;
  return {
    size: request.size ?? GAMMA_DEFAULTS.size,
    quality: request.quality ?? GAMMA_DEFAULTS.quality,
    // Transparency needs an alpha channel: the vendor makes it as PNG whatever format was asked.
    format: background === 'transparent' ? 'png' : request.format,
    background,
  };
}

/** A generation, or an edit (the edit model when there are input images, an edited image first). */
export function gammaSteps(key: (ctx: LaneEnv) => string): LaneSteps<GammaOptions> {
  return {
    edits: true,
    pollIntervalsMs: GAMMA_POLL_INTERVALS_MS,
    async start(ctx, request, job) {
      const call = gammaCall(ctx, key(ctx), job);
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
      // Uploads bill nothing; the submit does.
      await job.sending();
      const { id, status } = await submitPrediction(call, body);
      job.phase('rendering');
      const operation: GammaOperation = { predictionId: id, upstreamModel, references: inputs.length };
      return { operation, id, state: status };
    },
    async status(ctx, request, stored, job): Promise<StepStatus> {
      const operation = gammaOperation.parse(stored);
      const call = gammaCall(ctx, key(ctx), job);
      job.phase('rendering');
      const reading = await readPrediction(call, operation.predictionId);
      if (reading.state === 'pending')
        return { done: false, state: reading.status, ...(reading.retryAfterMs ? { retryAfterMs: reading.retryAfterMs } : {}) };
      const image = await downloadOutput(reading.output, { baseUrl: call.baseUrl, timeoutMs: call.timeoutMs(), signal: call.signal });
      const settings = {
        upstreamModel: reading.model ?? operation.upstreamModel,
        ...settingsOf(request),
        references: operation.references,
        predictionId: operation.predictionId,
      };
      return { done: true, state: reading.status, result: { images: [image], settings } };
    },
    timeout: (stored, timeoutMs) => budgetSpent(timeoutMs, gammaOperation.safeParse(stored).data?.predictionId ?? null),
  };
}
