import type { AssetRecord } from '../assets.js';
import type { StudioContext } from '../context.js';
import { publishGeneration, type ErrorPayload } from './events.js';
import { runImage, type GenerationResult, type ImagePlan } from './image-job.js';
import type { RunningJob } from './registry.js';
import { jobFailure } from './runner.js';

/** One output of a batch: its image, or why it failed. Partial success is reported, never hidden. */
export interface SlotOutcome {
  readonly slot: number;
  readonly ok: boolean;
  readonly provider: string;
  readonly model: string;
  readonly image?: AssetRecord;
  readonly revisedPrompt?: string;
  readonly error?: ErrorPayload;
}

export interface MultimodeResult {
  readonly requestId: string;
  readonly results: readonly SlotOutcome[];
  /** How many slots succeeded. */
  readonly succeeded: number;
  readonly failed: number;
}

/**
 * Runs every slot of a batch at once under one job (one cancel stops them all).
 * Each slot ends with `slot_done` or `slot_error`; the job itself ends with
 * `done` even when some slots failed. Only a cancelled batch ends in `error`.
 */
export async function runMultimode(ctx: StudioContext, job: RunningJob, plans: readonly ImagePlan[]): Promise<MultimodeResult> {
  const results = await Promise.all(
    plans.map(async (plan, slot): Promise<SlotOutcome> => {
      const identity = { slot, provider: plan.lane, model: plan.request.model.id };
      try {
        const result: GenerationResult = await runImage(ctx, job, plan, slot);
        const outcome: SlotOutcome = { ...identity, ok: true, image: result.images[0], ...(result.revisedPrompt ? { revisedPrompt: result.revisedPrompt } : {}) };
        publishGeneration(ctx, 'slot_done', { requestId: job.requestId, kind: job.kind, slot, result: outcome });
        return outcome;
      } catch (error) {
        const payload = jobFailure(job, error).toBody().error;
        publishGeneration(ctx, 'slot_error', { requestId: job.requestId, kind: job.kind, slot, error: payload });
        return { ...identity, ok: false, error: payload };
      }
    }),
  );
  if (job.signal.aborted) throw job.signal.reason;
  const succeeded = results.filter((outcome) => outcome.ok).length;
  return { requestId: job.requestId, results, succeeded, failed: results.length - succeeded };
}
