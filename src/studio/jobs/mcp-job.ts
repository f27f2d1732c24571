import { performance } from 'node:perf_hooks';
import { ServiceError } from '../../common/errors.js';
import { MCP_REFERENCE_TAGS_OPTION, type McpJobRequest, type McpPhase, type McpResult } from '../api/mcp.js';
import { saveAsset } from '../assets.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { laneTimeoutMs } from '../lanes/budget.js';
import type { LaneImageRequest, LaneJob, LaneSteps, StepStatus, UpstreamOperation } from '../lanes/types.js';
import { mimeOf } from '../media/image-type.js';
import { findAsset } from '../store/assets.js';
import type { JobContext, JobHandler } from './handlers.js';
import { runSteps } from './steps.js';

// The handler of `mcp` jobs (POST /api/mcp/generate): the job's lane runs
// it through the capability of its kind, as steps (an image: the lane's image
// steps; the lane's task is started once, then polled, and resumed from its
// stored operation after a restart, within the deadline the job got at its
// first start), and what it made is saved into history. This handler keeps
// the route's own events: `submitted`, then `progress` with the phases
// uploading (input `current` of `total`), provider-queued, provider-running,
// downloading, then `done` with the MCP result (its task id).

/** Saving on top of the upstream time: an image's write, a video's probe and poster. */
const SAVE_BUDGET_MS = { image: 10_000, video: 60_000 } as const;

/** Largest input the servers' upload flows take (§2.1: ≤100 MiB). */
const INPUT_MAX_BYTES = 100 * 1024 * 1024;

/** A gallery file the plan checked, read for upload. */
async function readInput(ctx: StudioContext, filename: string): Promise<{ bytes: Buffer; mime: string }> {
  const row = findAsset(ctx.db, filename);
  const bytes = row && !row.deleted_at ? await ctx.assets.read('generated', filename, { maxBytes: INPUT_MAX_BYTES }) : undefined;
  if (!row || !(bytes instanceof Buffer)) throw new ServiceError('MCP_UPLOAD_FAILED', `The input ${filename} cannot be read (missing, or over ${INPUT_MAX_BYTES} bytes).`, { details: { filename, retryable: false } });
  return { bytes, mime: mimeOf(row.format) };
}

/** The lane's image steps, as the plan found them. */
function imageSteps(request: McpJobRequest): LaneSteps {
  const steps = LANES[request.lane].adapter?.steps;
  if (!steps) throw new Error(`The ${request.lane} lane has no image steps.`);
  return steps;
}

/** The image request the lane's steps take: the model's parameters and ratio as its options, the references in order. */
async function imageRequest(ctx: StudioContext, job: JobContext<'mcp'>): Promise<LaneImageRequest> {
  const { request } = job;
  // A resumed job only polls: its inputs were uploaded before its task was recorded.
  const references = job.operation ? [] : await Promise.all(request.inputs.map((input) => readInput(ctx, input.filename)));
  const tags = request.inputs.map((input) => input.tag ?? null);
  return {
    requestId: job.requestId,
    prompt: request.prompt,
    model: { requested: request.model, id: request.model, upstreamId: request.model },
    format: 'png',
    options: { ...request.parameters, ...(request.ratio ? { ratio: request.ratio } : {}), ...(tags.some(Boolean) ? { [MCP_REFERENCE_TAGS_OPTION]: tags } : {}) },
    references,
  };
}

async function runMcp(ctx: StudioContext, job: JobContext<'mcp'>): Promise<McpResult> {
  const started = performance.now();
  const { request, requestId, events } = job;
  const lane = LANES[request.lane];
  const progress = (phase: McpPhase, fields: { current?: number; total?: number; upstreamState?: string } = {}) => events.progress({ requestId, kind: 'mcp', provider: request.lane, phase, ...fields });
  const steps = imageSteps(request);
  const laneRequest = await imageRequest(ctx, job);
  let submitted = false;
  let running = false;
  let runningSeen = false;
  const laneJob: LaneJob = {
    signal: job.signal,
    deadline: job.deadline,
    phase(phase) {
      job.recordPhase(phase);
      // Rendering reported by a status call: the task runs upstream.
      if (submitted && phase === 'rendering') running = true;
    },
    partial: () => {},
    // Progress before the task is submitted is its uploads.
    progress: (step) => !submitted && progress('uploading', { current: step.value, total: step.max }),
    sending: () => job.sending(),
  };

  events.submitted({ requestId, kind: 'mcp', provider: request.lane, media: request.media, model: request.model });
  const result = await runSteps(job, {
    pollIntervalsMs: typeof steps.pollIntervalsMs === 'function' ? steps.pollIntervalsMs(ctx) : steps.pollIntervalsMs,
    async start() {
      const operation = await steps.start(ctx, laneRequest, laneJob);
      submitted = true;
      progress('provider-queued');
      return operation;
    },
    async status(operation: UpstreamOperation): Promise<StepStatus> {
      submitted = true;
      const status = await steps.status(ctx, laneRequest, operation, laneJob);
      if (running && !runningSeen) {
        runningSeen = true;
        progress('provider-running', status.state ? { upstreamState: status.state } : {});
      }
      if (status.done) {
        progress('downloading');
        job.recordPhase('saving');
      }
      return status;
    },
    ...(steps.cancel ? { cancel: (operation: UpstreamOperation) => (steps.cancel as NonNullable<typeof steps.cancel>)(ctx, operation) } : {}),
    timeout: (operation) => steps.timeout(operation, laneTimeoutMs(ctx, lane)),
  });
  const upstreamMs = performance.now() - started;
  if (job.signal.aborted) throw job.signal.reason;
  const [image] = result.images;
  if (!image) throw new ServiceError('MCP_RESULT_URL_MISSING', `${request.lane} finished without a file.`, { details: { lane: request.lane, retryable: false } });
  // The MCP lanes' steps report their task id in the result's settings.
  const taskId = String(result.settings.taskId ?? '');
  const saveStarted = performance.now();
  const settings = { taskId, ...(request.ratio ? { ratio: request.ratio } : {}), ...request.parameters, inputs: request.inputs.map((input) => ({ role: input.role, filename: input.filename })) };
  const metadata = { prompt: request.prompt, lane: request.lane, model: request.model, requestId, settings };
  const asset = await saveAsset(ctx, { bytes: image.bytes, metadata: { ...metadata, kind: 'generate' } });
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    requestId,
    provider: request.lane,
    media: request.media,
    model: request.model,
    taskId,
    asset,
    timings: { upstreamMs: round(upstreamMs), saveMs: round(performance.now() - saveStarted), totalMs: round(performance.now() - started) },
  };
}

export const mcpJobHandler: JobHandler<'mcp'> = {
  // Once the task is recorded, a restart polls it again instead of submitting anew.
  canResume: (job) => job.operation !== null,
  // Uploads come first; the lane calls job.sending() before its submit.
  reachesUpstreamAtStart: () => false,
  budgetMs: (ctx, job) => laneTimeoutMs(ctx, LANES[job.request.lane]) + SAVE_BUDGET_MS[job.request.media],
  run: (ctx, job) => runMcp(ctx, job),
};
