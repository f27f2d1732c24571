import { performance } from 'node:perf_hooks';
import { ServiceError } from '../../common/errors.js';
import type { ProviderLaneId } from '../catalog/lanes.js';
import type { StudioContext } from '../context.js';
import { saveAsset, type AssetRecord } from '../assets.js';
import type { LaneAdapter, LaneImageRequest, LaneJob, LaneUsage } from '../lanes/types.js';
import { publishGeneration } from './events.js';
import type { RunningJob } from './registry.js';

/** One image job, validated and resolved: what runs, on which lane. */
export interface ImagePlan {
  readonly lane: ProviderLaneId;
  readonly adapter: LaneAdapter;
  readonly operation: 'generate' | 'edit';
  readonly request: LaneImageRequest;
}

/** Where the time of a job went (milliseconds), measured here around each step. */
export interface GenerationTimings {
  /** The lane call: upstream request, stream, base64 decode. */
  readonly upstreamMs: number;
  /** saveAsset for every image: decode/probe, metadata embedding, thumbnail, file writes, database row. */
  readonly saveMs: number;
  readonly totalMs: number;
}

/** The result of one generation or edit (sync body, `done.result`, a multimode slot's `image` source). */
export interface GenerationResult {
  readonly requestId: string;
  readonly provider: ProviderLaneId;
  /** Our id of the model that ran (after the lane default and compatibility mapping). */
  readonly model: string;
  /** What the client asked for, when that differs from `model` (e.g. lang-5.6-luna runs as lang-6-luna on oauth). */
  readonly requestedModel?: string;
  readonly images: readonly AssetRecord[];
  readonly revisedPrompt?: string;
  readonly usage?: LaneUsage;
  /** Settings the upstream call used, defaults filled in. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly timings: GenerationTimings;
}

const elapsed = (since: number) => Math.round((performance.now() - since) * 100) / 100;

/**
 * Runs one lane call and saves its images. Progress goes to the channel (with
 * `slot` inside a multimode batch). Nothing is saved unless the lane returned
 * every image; once saving starts, a cancel no longer interrupts it, so no
 * half-written asset is left behind.
 */
export async function runImage(ctx: StudioContext, job: RunningJob, plan: ImagePlan, slot?: number): Promise<GenerationResult> {
  const started = performance.now();
  const base = { requestId: job.requestId, kind: job.kind, ...(slot !== undefined ? { slot } : {}) };
  let lastPhase: string | undefined;
  const laneJob: LaneJob = {
    signal: job.signal,
    phase(phase) {
      // A lane may report a phase twice (e.g. a retry after a token refresh); listeners see it once.
      if (phase === lastPhase) return;
      lastPhase = phase;
      job.setPhase(phase);
      publishGeneration(ctx, 'phase', { ...base, phase, provider: plan.lane, model: plan.request.model.id });
    },
    partial({ index, b64, format }) {
      publishGeneration(ctx, 'partial', { ...base, index, format, b64 });
    },
  };
  const run = plan.operation === 'edit' ? plan.adapter.edit : plan.adapter.generate;
  if (!run) throw new ServiceError('LANE_UNSUPPORTED', `The ${plan.lane} lane cannot ${plan.operation}.`);
  const output = await run.call(plan.adapter, ctx, plan.request, laneJob);
  const upstreamMs = elapsed(started);
  if (job.signal.aborted) throw job.signal.reason;

  job.setPhase('saving');
  publishGeneration(ctx, 'phase', { ...base, phase: 'saving', provider: plan.lane, model: plan.request.model.id });
  const saveStarted = performance.now();
  const images: AssetRecord[] = [];
  for (const image of output.images) {
    images.push(
      await saveAsset(ctx, {
        bytes: image.bytes,
        metadata: {
          prompt: plan.request.prompt,
          lane: plan.lane,
          model: plan.request.model.id,
          requestId: job.requestId,
          kind: job.kind,
          settings: output.settings,
          ...(output.revisedPrompt ? { revisedPrompt: output.revisedPrompt } : {}),
        },
      }),
    );
  }
  const saveMs = elapsed(saveStarted);
  const { model } = plan.request;
  return {
    requestId: job.requestId,
    provider: plan.lane,
    model: model.id,
    ...(model.requested !== model.id ? { requestedModel: model.requested } : {}),
    images,
    ...(output.revisedPrompt ? { revisedPrompt: output.revisedPrompt } : {}),
    ...(output.usage ? { usage: output.usage } : {}),
    settings: output.settings,
    timings: { upstreamMs, saveMs, totalMs: elapsed(started) },
  };
}
