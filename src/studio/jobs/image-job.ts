import { performance } from 'node:perf_hooks';
import {
  IMAGE_JOB_KINDS,
  type AssetRecord,
  type GenerationResult,
  type ImageJobRequest,
  type JobResult,
  type MultimodeResult,
  type NodeJobRequest,
  type SlotOutcome,
  type SlotPlan,
} from '../api/index.js';
import { ServiceError } from '../errors.js';
import { discardAsset, recordAsset, writeAsset, type SaveInput, type WrittenAsset } from '../assets.js';
import { UpstreamError } from '../upstream/index.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { recordNode, sessionLinkOf } from '../graphs/nodes.js';
import { laneTimeoutMs } from '../lanes/budget.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule, ReadyImage, UpstreamOperation } from '../lanes/types.js';
import type { JobContext, JobHandler } from './handlers.js';
import { jobFailure } from './records.js';
import { laneRequest, type ImageInputs } from './plan.js';
import { studioStorage } from './limits.js';
import { runSteps } from './steps.js';
import { isParked } from './parked.js';

// The handler of image jobs: generate and edit (one slot) and multimode (every
// slot at once under one job, one cancel stops them all). A node job is one
// generate or edit whose image is linked to its graph session and whose node
// is recorded once the image is saved. A job on a lane that runs as steps
// (gamma) continues after a restart from its recorded operation; any other
// image job's upstream call died with the process, and nothing is saved
// before a lane returned every image.

/** The kinds of jobs that make images. */
type ImageKind = (typeof IMAGE_JOB_KINDS)[number];
export type ImageJob = JobContext<ImageKind>;

const elapsed = (since: number) => Math.round((performance.now() - since) * 100) / 100;

/** The lane call: a direct call, or the lane's steps driven by the engine (started, or continued from a recorded operation). */
function callLane(
  ctx: StudioContext,
  job: ImageJob,
  request: LaneImageRequest,
  laneJob: LaneJob,
  lane: LaneModule,
): Promise<LaneImageResult> {
  const adapter = lane.adapter;
  const steps = adapter?.steps;
  if (steps) {
    return runSteps(job, {
      pollIntervalsMs: typeof steps.pollIntervalsMs === 'function' ? steps.pollIntervalsMs(ctx) : steps.pollIntervalsMs,
      start: () => steps.start(ctx, request, laneJob),
      status: (operation) => steps.status(ctx, request, operation, laneJob),
      ...(steps.cancel
        ? { cancel: (operation: UpstreamOperation) => (steps.cancel as NonNullable<typeof steps.cancel>)(ctx, operation) }
        : {}),
      timeout: (operation) => steps.timeout(operation, laneTimeoutMs(ctx, lane)),
    });
  }
  const { operation } = job.request;
  const run = operation === 'edit' ? adapter?.edit : adapter?.generate;
  if (!run) throw new Error(`The ${lane.id} lane lost its ${operation} operation after planning.`);
  return run(ctx, request, laneJob);
}

/**
 * Runs one slot's lane call and saves its images. Once saving starts, a cancel
 * no longer interrupts it, so no half-written asset is left behind.
 */
export async function runSlot(...args: Parameters<typeof generateAndSave>): Promise<GenerationResult> {
  // The images will be written: the store gets ready while the upstream works.
  const writeGiven = args[0].assets.expectWrite();
  try {
    return await generateAndSave(...args);
  } finally {
    writeGiven();
  }
}

async function generateAndSave(
  ctx: StudioContext,
  job: ImageJob,
  slot: SlotPlan,
  inputs: ImageInputs,
  index?: number,
  session?: { id: string; title: string },
): Promise<GenerationResult> {
  const started = performance.now();
  const { lane, request } = laneRequest(ctx, slot, inputs);
  const slotField = index !== undefined ? { slot: index } : {};
  const identity = { provider: lane.id, model: request.model.id, ...slotField };
  // An edit of a history image records its source, so History links the two.
  const source = job.request.inputs.image;
  const derivedFrom = job.request.operation === 'edit' && source?.source === 'history' ? source.filename : undefined;
  const saveInput = (bytes: Buffer, settings: LaneImageResult['settings'], revisedPrompt: string | undefined): SaveInput => ({
    bytes,
    metadata: {
      prompt: request.prompt,
      lane: lane.id,
      model: request.model.id,
      requestId: job.requestId,
      kind: job.kind,
      settings,
      ...(revisedPrompt ? { revisedPrompt } : {}),
    },
    ...(session ? { session } : {}),
    ...(derivedFrom ? { derivedFrom } : {}),
  });
  // Files of images the lane reported final before its call ended, being written while it goes on.
  const early = new Map<Buffer, { image: ReadyImage; written: Promise<WrittenAsset> }>();
  /** Removes the early files that have no row (all of them, unless some were recorded). */
  const discardEarly = async (recorded: readonly AssetRecord[] = []) => {
    for (const { written } of early.values()) {
      const row = await written.catch(() => undefined);
      if (row && !recorded.some((record) => record.filename === row.filename)) await discardAsset(ctx, row).catch(() => {});
    }
  };
  // Kept across the job's parks, so a phase reported at every status call is published once.
  const reported = job.keep(`phase-${index ?? 0}`, (): { phase?: string } => ({}));
  const laneJob: LaneJob = {
    signal: job.signal,
    deadline: job.deadline,
    phase(phase) {
      // A lane may report a phase twice (e.g. a retry after a token refresh); listeners see it once.
      if (phase === reported.phase) return;
      reported.phase = phase;
      job.phase(phase, identity);
    },
    partial: (image) => job.partial({ ...image, ...slotField }),
    progress: (step) => job.events.progress({ requestId: job.requestId, kind: job.kind, ...identity, ...step }),
    queuePosition(position) {
      reported.phase = 'queued';
      job.phase('queued', { ...identity, queuePosition: position });
    },
    imageReady(image) {
      if (job.signal.aborted || early.has(image.bytes)) return;
      const written = writeAsset(ctx, saveInput(image.bytes, image.settings, image.revisedPrompt));
      // Awaited once the lane returns the image, or discarded.
      written.catch(() => {});
      early.set(image.bytes, { image, written });
    },
    sending: () => job.sending(),
  };
  let output: LaneImageResult;
  try {
    output = await callLane(ctx, job, request, laneJob, lane);
    ctx.cooldowns.noteSuccess(lane.id);
  } catch (error) {
    // Parked between two status calls: nothing failed, the job runs again when due.
    if (isParked(error)) throw error;
    await discardEarly();
    // A rate limit or an exhausted quota rests the lane until its Retry-After (auto skips it meanwhile).
    const failure = error instanceof UpstreamError ? error.toServiceError() : error;
    if (failure instanceof ServiceError) ctx.cooldowns.noteFailure(lane.id, failure);
    throw failure;
  }
  const upstreamMs = elapsed(started);
  if (job.signal.aborted) {
    await discardEarly();
    throw job.signal.reason;
  }

  job.phase('saving', identity);
  const saveStarted = performance.now();
  const images: AssetRecord[] = [];
  // An early file serves when the lane returned its image with what it was written with.
  const earlyFile = (bytes: Buffer) => {
    const entry = early.get(bytes);
    return entry && entry.image.settings === output.settings && entry.image.revisedPrompt === output.revisedPrompt
      ? entry.written
      : undefined;
  };
  try {
    for (const image of output.images) {
      const written = earlyFile(image.bytes) ?? writeAsset(ctx, saveInput(image.bytes, output.settings, output.revisedPrompt));
      images.push(await recordAsset(ctx, await written));
    }
  } finally {
    // Early files the result does not hold: images not returned (or returned with other metadata), or left unrecorded by a failure.
    if (early.size) await discardEarly(images);
  }
  const saveMs = elapsed(saveStarted);
  const { model } = request;
  return {
    requestId: job.requestId,
    provider: lane.id,
    model: model.id,
    ...(model.requested !== model.id ? { requestedModel: model.requested } : {}),
    images,
    ...(output.revisedPrompt ? { revisedPrompt: output.revisedPrompt } : {}),
    ...(output.usage ? { usage: output.usage } : {}),
    settings: output.settings,
    timings: { upstreamMs, saveMs, totalMs: elapsed(started) },
    ...(slot.warnings?.length ? { warnings: slot.warnings } : {}),
    ...(slot.routing ? { routing: slot.routing } : {}),
  };
}

/**
 * Every slot at once. Each ends with `slot_done` or `slot_error`; the job ends
 * with `done` even when some slots failed (partial success is reported, never
 * hidden). Only a cancelled batch ends in `error`.
 */
async function runBatch(ctx: StudioContext, job: ImageJob, request: ImageJobRequest, inputs: ImageInputs): Promise<MultimodeResult> {
  const results = await Promise.all(
    request.slots.map(async (slot, index): Promise<SlotOutcome> => {
      const identity = {
        slot: index,
        provider: slot.lane,
        model: slot.model.id,
        ...(slot.warnings?.length ? { warnings: slot.warnings } : {}),
        ...(slot.routing ? { routing: slot.routing } : {}),
      };
      try {
        const result = await runSlot(ctx, job, slot, inputs, index);
        const outcome: SlotOutcome = {
          ...identity,
          ok: true,
          image: result.images[0],
          ...(result.revisedPrompt ? { revisedPrompt: result.revisedPrompt } : {}),
        };
        job.events.slotDone({ requestId: job.requestId, kind: job.kind, slot: index, result: outcome });
        return outcome;
      } catch (error) {
        const payload = jobFailure(job.signal, error, job.requestId, studioStorage(ctx)).toBody().error;
        job.events.slotError({ requestId: job.requestId, kind: job.kind, slot: index, error: payload });
        return { ...identity, ok: false, error: payload };
      }
    }),
  );
  if (job.signal.aborted) throw job.signal.reason;
  const succeeded = results.filter((outcome) => outcome.ok).length;
  return { requestId: job.requestId, results, succeeded, failed: results.length - succeeded };
}

/** A job continued from its recorded operation needs no inputs: its lane reads the operation. */
const NO_INPUTS: ImageInputs = { references: [] };

/** The inputs of a job that did not start in the process that accepted it (a restart, a retry, another process): from the stored files. */
async function storedInputs(ctx: StudioContext, request: ImageJobRequest): Promise<ImageInputs> {
  const { references, image, mask } = request.inputs;
  return {
    references: await Promise.all(references.map((descriptor) => ctx.jobs.inputs.load(descriptor))),
    ...(image ? { image: await ctx.jobs.inputs.load(image) } : {}),
    ...(mask ? { mask: await ctx.jobs.inputs.load(mask) } : {}),
  };
}

/** The lane of a one-slot job whose lane runs as steps. */
const steppedLane = (request: ImageJobRequest): LaneModule | undefined => {
  const lane = request.slots.length === 1 ? LANES[request.slots[0].lane] : undefined;
  return lane?.adapter?.steps ? lane : undefined;
};

/** A node job's request carries its node. */
const isNodeRequest = (request: ImageJobRequest | NodeJobRequest): request is NodeJobRequest => 'node' in request;

export const imageJobHandler: JobHandler<ImageKind> = {
  // One image job resumes when its lane runs as steps and it recorded its operation; a batch
  // (several operations, one per slot) does not.
  canResume: (job) => job.kind !== 'multimode' && job.operation !== null && steppedLane(job.request) !== undefined,
  // A direct lane call starts with the job; a lane with steps says when it sends (`sending`).
  reachesUpstreamAtStart: (job) => job.kind === 'multimode' || steppedLane(job.request) === undefined,
  budgetMs: (ctx, job) => Math.max(...job.request.slots.map((slot) => laneTimeoutMs(ctx, LANES[slot.lane])), 0),
  async run(ctx, job): Promise<JobResult> {
    const { request } = job;
    const inputs = job.inputs ?? (job.operation ? NO_INPUTS : await storedInputs(ctx, request));
    if (job.kind === 'multimode') return runBatch(ctx, job, request, inputs);
    if (!isNodeRequest(request)) return runSlot(ctx, job, request.slots[0], inputs);
    const result = await runSlot(ctx, job, request.slots[0], inputs, undefined, await sessionLinkOf(ctx, request.node));
    return recordNode(ctx, request.node, request.operation, result);
  },
};
