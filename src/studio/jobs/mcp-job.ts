import { performance } from 'node:perf_hooks';
import { ServiceError } from '../errors.js';
import { MCP_TASK_OPTION, type McpJobRequest, type McpPhase, type McpPlannedTask, type McpResult } from '../api/mcp.js';
import { saveAsset } from '../assets.js';
import { LANES } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import { laneTimeoutMs } from '../lanes/budget.js';
import type { LaneJob, UpstreamOperation } from '../lanes/types.js';
import type { VideoJob } from '../lanes/video-model.js';
import { mimeOf } from '../media/image-type.js';
import { saveVideoAsset } from '../video/save-video.js';
import type { JobContext, JobHandler } from './handlers.js';
import { runSteps, type Steps } from './steps.js';

// The handler of `mcp` jobs (POST /api/mcp/generate): the job's lane runs
// the task the route planned through the capability of its kind, as steps
// (an image: the lane's image steps; a video: its video model's), given the
// planned task as is (api/mcp.ts McpPlannedTask); the task is started once,
// then polled, and resumed from its stored operation after a restart, within
// the deadline the job got at its first start. What it made is saved into
// history. This handler keeps the route's own events: `submitted`, then
// `progress` with the phases uploading (input `current` of `total`),
// provider-queued, provider-running, downloading, then `done` with the MCP
// result (its task id).

/** Saving on top of the upstream time: an image's write, a video's probe and poster. */
const SAVE_BUDGET_MS = { image: 10_000, video: 60_000 } as const;

/** Largest input the servers' upload flows take (§2.1: ≤100 MiB). */
const INPUT_MAX_BYTES = 100 * 1024 * 1024;

/** A gallery file the plan checked, read for upload. */
async function readInput(ctx: StudioContext, filename: string): Promise<{ filename: string; bytes: Buffer; mime: string }> {
  const row = await ctx.store.assets.find(filename);
  const bytes = row && !row.deleted_at ? await ctx.assets.read('generated', filename, { maxBytes: INPUT_MAX_BYTES }) : undefined;
  if (!row || !(bytes instanceof Buffer))
    throw new ServiceError('MCP_UPLOAD_FAILED', `The input ${filename} cannot be read (missing, or over ${INPUT_MAX_BYTES} bytes).`, {
      details: { filename, retryable: false },
    });
  return { filename, bytes, mime: mimeOf(row.format) };
}

/** The planned task with its inputs read (a resumed job only polls: its inputs were uploaded before its task was recorded). */
async function plannedTask(ctx: StudioContext, job: JobContext<'mcp'>): Promise<McpPlannedTask> {
  const { request } = job;
  const inputs = job.operation
    ? []
    : await Promise.all(
        request.inputs.map(async (input) => ({
          role: input.role,
          ...(input.tag ? { tag: input.tag } : {}),
          file: await readInput(ctx, input.filename),
        })),
      );
  return { ratio: request.ratio, parameters: request.parameters, inputs };
}

/** The outcome of a task: its file and its task id (the MCP lanes' steps report it in their settings). */
interface TaskOutcome {
  readonly bytes: Buffer;
  readonly taskId: string;
}

/** What the job tells its listeners as the lane reports. */
interface Reports {
  uploading(current: number, total: number): void;
  /** The task runs upstream: the lane reported it during a poll. */
  running(): void;
}

/** The lane's steps for the job's kind, over the planned task, answering the file. */
function laneSteps(
  ctx: StudioContext,
  job: JobContext<'mcp'>,
  task: McpPlannedTask,
  reports: Reports,
  submitted: () => boolean,
): Omit<Steps<TaskOutcome>, 'start'> & { start(): ReturnType<Steps<TaskOutcome>['start']> } {
  const { request } = job;
  const lane = LANES[request.lane];
  const model = { requested: request.model, id: request.model, upstreamId: request.model };
  const options = { [MCP_TASK_OPTION]: task };
  const taskId = (settings: Readonly<Record<string, unknown>> | undefined) => String(settings?.taskId ?? '');
  if (request.media === 'image') {
    const steps = lane.adapter?.steps;
    if (!steps) throw new Error(`The ${request.lane} lane has no image steps.`);
    const laneRequest = { requestId: job.requestId, prompt: request.prompt, model, format: 'png' as const, options, references: [] };
    const laneJob: LaneJob = {
      signal: job.signal,
      deadline: job.deadline,
      phase(phase) {
        job.recordPhase(phase);
        if (submitted() && phase === 'rendering') reports.running();
      },
      partial: () => {},
      progress: (step) => reports.uploading(step.value, step.max),
      sending: () => job.sending(),
    };
    return {
      pollIntervalsMs: typeof steps.pollIntervalsMs === 'function' ? steps.pollIntervalsMs(ctx) : steps.pollIntervalsMs,
      start: () => steps.start(ctx, laneRequest, laneJob),
      async status(operation) {
        const status = await steps.status(ctx, laneRequest, operation, laneJob);
        const image = status.done ? status.result.images[0] : undefined;
        if (!status.done) return status;
        if (!image)
          throw new ServiceError('MCP_RESULT_URL_MISSING', `${request.lane} finished without a file.`, {
            details: { lane: request.lane, retryable: false },
          });
        return { done: true, state: status.state, result: { bytes: image.bytes, taskId: taskId(status.result.settings) } };
      },
      ...(steps.cancel
        ? { cancel: (operation: UpstreamOperation) => (steps.cancel as NonNullable<typeof steps.cancel>)(ctx, operation) }
        : {}),
      timeout: (operation) => steps.timeout(operation, laneTimeoutMs(ctx, lane)),
    };
  }
  const video = lane.video;
  if (!video) throw new Error(`The ${request.lane} lane has no video model.`);
  const clip = {
    requestId: job.requestId,
    operation: 'generate' as const,
    index: 0,
    clips: 1,
    prompt: request.prompt,
    duration: Number(request.parameters.duration ?? 0),
    mode: 'text-to-video' as const,
    model,
    options,
    images: [],
  };
  const videoJob: VideoJob = {
    signal: job.signal,
    deadline: job.deadline,
    rendering: () => job.recordPhase('rendering'),
    // Before the submit: an upload; after it: the task runs upstream.
    progress: (update) =>
      submitted() ? reports.running() : reports.uploading(Math.round((update.fraction ?? 0) * task.inputs.length), task.inputs.length),
    sending: () => job.sending(),
  };
  return {
    pollIntervalsMs: video.pollIntervalsMs(ctx),
    start: () => video.start(ctx, clip, videoJob),
    async status(operation) {
      const status = await video.status(ctx, clip, operation, videoJob);
      if (!status.done) return status;
      if (!('bytes' in status.output))
        throw new ServiceError('MCP_RESULT_URL_MISSING', `${request.lane} answered a link where the file was expected.`, {
          details: { lane: request.lane, retryable: false },
        });
      return { done: true, state: status.state, result: { bytes: status.output.bytes, taskId: taskId(status.settings) } };
    },
    ...(video.cancel
      ? { cancel: (operation: UpstreamOperation) => (video.cancel as NonNullable<typeof video.cancel>)(ctx, operation) }
      : {}),
    timeout: (operation) => video.timeout(clip, operation),
  };
}

async function runMcp(ctx: StudioContext, job: JobContext<'mcp'>): Promise<McpResult> {
  const started = performance.now();
  const { request, requestId, events } = job;
  const progress = (phase: McpPhase, fields: { current?: number; total?: number; upstreamState?: string } = {}) =>
    events.progress({ requestId, kind: 'mcp', provider: request.lane, phase, ...fields });
  let submitted = job.operation !== null;
  // Kept across the job's parks: `provider-running` goes out once.
  const seen = job.keep('mcp-running', () => ({ running: false, sent: false }));
  const steps = laneSteps(
    ctx,
    job,
    await plannedTask(ctx, job),
    { uploading: (current, total) => progress('uploading', { current, total }), running: () => (seen.running = true) },
    () => submitted,
  );

  // Once per job: a run from its recorded task (after a park or a restart) was submitted before.
  if (job.operation === null)
    events.submitted({ requestId, kind: 'mcp', provider: request.lane, media: request.media, model: request.model });
  const result = await runSteps<TaskOutcome>(job, {
    ...steps,
    async start() {
      job.recordPhase('planning');
      const operation = await steps.start();
      submitted = true;
      progress('provider-queued');
      return operation;
    },
    async status(operation) {
      submitted = true;
      const status = await steps.status(operation);
      if (seen.running && !seen.sent) {
        seen.sent = true;
        progress('provider-running', status.state ? { upstreamState: status.state } : {});
      }
      if (status.done) {
        progress('downloading');
        job.recordPhase('saving');
      }
      return status;
    },
  });
  const upstreamMs = performance.now() - started;
  if (job.signal.aborted) throw job.signal.reason;
  const saveStarted = performance.now();
  const settings = {
    taskId: result.taskId,
    ...(request.ratio ? { ratio: request.ratio } : {}),
    ...request.parameters,
    inputs: request.inputs.map((input) => ({ role: input.role, filename: input.filename })),
  };
  const metadata = { prompt: request.prompt, lane: request.lane, model: request.model, requestId, settings };
  const asset =
    request.media === 'image'
      ? await saveAsset(ctx, { bytes: result.bytes, metadata: { ...metadata, kind: 'generate' } })
      : await saveVideoAsset(ctx, { bytes: result.bytes, metadata: { ...metadata, kind: 'video' } });
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    requestId,
    provider: request.lane,
    media: request.media,
    model: request.model,
    taskId: result.taskId,
    asset,
    timings: { upstreamMs: round(upstreamMs), saveMs: round(performance.now() - saveStarted), totalMs: round(performance.now() - started) },
  };
}

/** The job's time from its first start: its lane's budget for the kind, and the saving. */
function budgetMs(ctx: StudioContext, request: McpJobRequest): number {
  const lane = LANES[request.lane];
  const upstream = request.media === 'video' && lane.video ? lane.video.budgetMs(ctx) : laneTimeoutMs(ctx, lane);
  return upstream + SAVE_BUDGET_MS[request.media];
}

export const mcpJobHandler: JobHandler<'mcp'> = {
  // Once the task is recorded, a restart polls it again instead of submitting anew.
  canResume: (job) => job.operation !== null,
  // Uploads come first; the lane calls job.sending() before its submit.
  reachesUpstreamAtStart: () => false,
  budgetMs: (ctx, job) => budgetMs(ctx, job.request),
  run: (ctx, job) => runMcp(ctx, job),
};
