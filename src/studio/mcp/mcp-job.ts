import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { ServiceError } from '../errors.js';
import { saveAsset } from '../assets.js';
import type { McpPhase, McpResult } from '../api/mcp.js';
import type { StudioContext } from '../context.js';
import type { JobContext, JobHandler } from '../jobs/handlers.js';
import { runSteps } from '../jobs/steps.js';
import { saveVideoAsset } from '../video/save-video.js';
import { downloadResult } from './download.js';
import { readInputFile } from './inputs.js';
import { isRateLimit, readTask, taskIdOf } from './protocol.js';
import { mcpConnections, mcpTarget } from './servers.js';
import { callTool, pollCall, submitCall, uploadInput, type ToolCall } from './tools.js';

// The handler of `mcp` jobs (POST /api/mcp/generate; contract
// zeta-eta-source-usage §2.3): start uploads the gallery inputs, then submits
// the generation once (the billing checkpoint) and stores the task as the
// job's operation `{server, sessionId, taskId}`; each engine step is one poll
// (the contract's back-off), so a studio restarted mid-task resumes it, in a
// new session if the old one is gone, within the deadline the job got at its
// first start; a cancel calls `tasks/cancel`. A finished task's file is downloaded, saved into history
// (image or video, thumbnail and metadata), and only then is the job done.

const mcpOperation = z.object({ server: z.enum(['zeta', 'eta']), sessionId: z.string().nullable(), taskId: z.string().min(1) });
type McpOperation = z.infer<typeof mcpOperation>;

/** §2.3: the first poll after 5 s, then ×1.5 up to 15 s (jitter 0–1 s added per job). */
const POLL_INTERVALS_MS = [5000, 7500, 11_250, 15_000] as const;
/** §2.3: deadlines by kind; SVC_<LANE>_TIMEOUT_MS (SVC_ZETA_TIMEOUT_MS, SVC_ETA_TIMEOUT_MS) overrides both. */
const DEADLINE_MS = { image: 5 * 60_000, video: 12 * 60_000 } as const;
/** Saving on top of the upstream time: an image's write, a video's probe and poster. */
const SAVE_BUDGET_MS = { image: 10_000, video: 60_000 } as const;
/** §2.3: poll errors tolerated in a row (a rate limit does not count). */
const POLL_ERRORS_TOLERATED = 3;
const RATE_LIMIT_MAX_MS = 30_000;
/** How long tasks/cancel may take (the engine stops waiting at 5 s anyway). */
const CANCEL_TIMEOUT_MS = 4000;

const timeoutVariable = (lane: string): string => `SVC_${lane.toUpperCase()}_TIMEOUT_MS`;

const envMs = (ctx: StudioContext, name: string): number | undefined => {
  const value = Number(ctx.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
};

function pollIntervals(ctx: StudioContext): readonly number[] {
  const single = envMs(ctx, 'SVC_MCP_POLL_MS');
  if (single) return [single];
  const jitter = Math.floor(Math.random() * 1000);
  return POLL_INTERVALS_MS.map((ms) => ms + jitter);
}

async function runMcp(ctx: StudioContext, job: JobContext<'mcp'>): Promise<McpResult> {
  const started = performance.now();
  const { request, requestId, events } = job;
  const lane = request.lane;
  const call: ToolCall = { ctx, target: mcpTarget(ctx, lane), signal: job.signal, timeoutMs: () => Math.max(1, job.deadline - Date.now()) };
  const progress = (phase: McpPhase, fields: { current?: number; total?: number; upstreamState?: string } = {}) => events.progress({ requestId, kind: 'mcp', provider: lane, phase, ...fields });
  let running = false;
  let pollErrors = 0;
  let downloadErrors = 0;
  let rateLimitMs = 0;

  const result = await runSteps<{ bytes: Buffer; taskId: string }>(job, {
    pollIntervalsMs: pollIntervals(ctx),
    async start() {
      events.submitted({ requestId, kind: 'mcp', provider: lane, media: request.media, model: request.model });
      job.recordPhase('planning');
      const refs: string[] = [];
      for (const [index, input] of request.inputs.entries()) {
        progress('uploading', { current: index + 1, total: request.inputs.length });
        refs.push(await uploadInput(call, await readInputFile(ctx, input.filename)));
      }
      const { tool, args } = submitCall(request, refs);
      // Uploads bill nothing; the submit does, once: it is never sent again by itself.
      await job.sending();
      job.recordPhase('rendering');
      const answer = await callTool(call, tool, args);
      const taskId = taskIdOf(lane, answer);
      if (!taskId) throw new ServiceError('MCP_TASK_ID_MISSING', `${lane} accepted the generation but its answer holds no task id.`, { details: { lane, retryable: false } });
      progress('provider-queued');
      const operation: McpOperation = { server: lane, sessionId: answer.sessionId ?? null, taskId };
      return { operation, id: taskId, state: 'submitted' };
    },
    async status(stored) {
      const operation = mcpOperation.parse(stored);
      const { tool, args } = pollCall(lane, operation.taskId);
      let answer;
      try {
        answer = await callTool(call, tool, args);
      } catch (error) {
        if (job.signal.aborted) throw error;
        const message = (error as Error).message;
        if (isRateLimit(message)) {
          rateLimitMs = Math.min(RATE_LIMIT_MAX_MS, rateLimitMs ? rateLimitMs * 2 : 10_000);
          return { done: false, state: 'rate-limited', retryAfterMs: rateLimitMs };
        }
        pollErrors += 1;
        if (pollErrors > POLL_ERRORS_TOLERATED) throw error;
        return { done: false, state: 'unreachable' };
      }
      pollErrors = 0;
      const reading = readTask(lane, request.media, answer);
      if (reading.state === 'pending') return { done: false, state: reading.status };
      if (reading.state === 'running') {
        if (!running) progress('provider-running', { upstreamState: reading.status });
        running = true;
        return { done: false, state: reading.status };
      }
      const { taskId } = operation;
      if (reading.state === 'failed') throw new ServiceError('MCP_TASK_FAILED', `MCP_TASK_FAILED:${taskId}:${(reading.detail ?? reading.status).slice(0, 300)}`, { details: { lane, taskId, upstreamStatus: reading.status, retryable: false } });
      if (reading.state === 'canceled') throw new ServiceError('MCP_TASK_CANCELED', `${lane} task ${taskId} was canceled upstream.`, { details: { lane, taskId, retryable: false } });
      if (!reading.url) throw new ServiceError('MCP_RESULT_URL_MISSING', `${lane} task ${taskId} succeeded without a result URL.`, { details: { lane, taskId, retryable: false } });
      progress('downloading');
      job.recordPhase('saving');
      let bytes: Buffer;
      try {
        bytes = await downloadResult(call, reading.url, request.media);
      } catch (error) {
        // §2.3: a download lost to the network is tried again at the next step (the task answers its link again), 3 times.
        const retryable = error instanceof ServiceError && error.details?.retryable === true;
        if (job.signal.aborted || !retryable || ++downloadErrors > POLL_ERRORS_TOLERATED) throw error;
        return { done: false, state: 'download-retry' };
      }
      return { done: true, state: reading.status, result: { bytes, taskId } };
    },
    // A cancel reaches the server through the protocol's tasks/cancel (its tools have no cancel).
    cancel: (stored) => mcpConnections(ctx).cancelTask(call.target, mcpOperation.parse(stored).taskId, { timeoutMs: CANCEL_TIMEOUT_MS }),
    timeout: (stored) => {
      const taskId = mcpOperation.safeParse(stored).data?.taskId ?? null;
      return new ServiceError('MCP_JOB_TIMEOUT', `The ${lane} ${request.media} task${taskId ? ` ${taskId}` : ''} did not finish within its deadline (${timeoutVariable(lane)}).`, { details: { lane, taskId, retryable: true } });
    },
  });
  const upstreamMs = performance.now() - started;
  if (job.signal.aborted) throw job.signal.reason;
  const saveStarted = performance.now();
  const settings = { taskId: result.taskId, ...(request.ratio ? { ratio: request.ratio } : {}), ...request.parameters, inputs: request.inputs.map((input) => ({ role: input.role, filename: input.filename })) };
  const metadata = { prompt: request.prompt, lane, model: request.model, requestId, settings };
  const asset = request.media === 'image' ? await saveAsset(ctx, { bytes: result.bytes, metadata: { ...metadata, kind: 'generate' } }) : await saveVideoAsset(ctx, { bytes: result.bytes, metadata: { ...metadata, kind: 'video' } });
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    requestId,
    provider: lane,
    media: request.media,
    model: request.model,
    taskId: result.taskId,
    asset,
    timings: { upstreamMs: round(upstreamMs), saveMs: round(performance.now() - saveStarted), totalMs: round(performance.now() - started) },
  };
}

export const mcpJobHandler: JobHandler<'mcp'> = {
  // Once the task is recorded, a restart polls it again instead of submitting anew.
  canResume: (job) => job.operation !== null,
  // Uploads come first; the submit calls job.sending() itself.
  reachesUpstreamAtStart: () => false,
  budgetMs: (ctx, job) => (envMs(ctx, timeoutVariable(job.request.lane)) ?? DEADLINE_MS[job.request.media]) + SAVE_BUDGET_MS[job.request.media],
  run: (ctx, job) => runMcp(ctx, job),
};
