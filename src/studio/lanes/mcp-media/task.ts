import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import type { McpMediaKind } from './catalog.js';
import type { McpLaneDialect, McpTaskRequest } from './dialect.js';
import { downloadResult } from './download.js';
import { isRateLimit } from './protocol.js';
import { mcpConnections, mcpTarget } from './servers.js';
import { callTool, type ToolCall } from './tools.js';

// One MCP task as steps (contract zeta-eta-source-usage §2.3), the same for
// an image and a video, whichever surface asked: `start` uploads the inputs,
// then submits the generation once (the billing checkpoint, `sending`) and
// answers the task as the operation `{server, sessionId, taskId}`; each
// `status` is one poll (the contract's back-off between them), and a finished
// task's file is downloaded; `cancel` is the protocol's `tasks/cancel`. A
// studio restarted mid-task polls the stored task again (a new session if the
// old one is gone).

export const mcpOperation = lazy(() => z.object({ server: z.string(), sessionId: z.string().nullable(), taskId: z.string().min(1) }));
export type McpOperation = z.infer<typeof mcpOperation>;

/** §2.3: the first poll after 5 s, then ×1.5 up to 15 s. */
const POLL_INTERVALS_MS = [5000, 7500, 11_250, 15_000] as const;
/** §2.3: deadlines by kind; SVC_<LANE>_TIMEOUT_MS (SVC_ZETA_TIMEOUT_MS, SVC_ETA_TIMEOUT_MS) overrides both. */
export const MCP_DEADLINE_MS: Readonly<Record<McpMediaKind, number>> = { image: 5 * 60_000, video: 12 * 60_000 };
/** §2.3: poll errors tolerated in a row (a rate limit does not count). */
const POLL_ERRORS_TOLERATED = 3;
const RATE_LIMIT_MAX_MS = 30_000;
/** How long tasks/cancel may take (the engine stops waiting at 5 s anyway). */
const CANCEL_TIMEOUT_MS = 4000;

const timeoutVariable = (lane: string): string => `SVC_${lane.toUpperCase()}_TIMEOUT_MS`;

/** The deadline override of a lane (SVC_<LANE>_TIMEOUT_MS), when set. */
export function mcpTimeoutOverride(ctx: LaneEnv, lane: string): number | undefined {
  const value = Number(ctx.env[timeoutVariable(lane)]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** §2.3's back-off with a per-job jitter of 0–1 s; SVC_MCP_POLL_MS sets one interval (tests, the demo). */
export function mcpPollIntervals(ctx: LaneEnv): readonly number[] {
  const single = Number(ctx.env.SVC_MCP_POLL_MS);
  if (Number.isFinite(single) && single > 0) return [single];
  const jitter = Math.floor(Math.random() * 1000);
  return POLL_INTERVALS_MS.map((ms) => ms + jitter);
}

/** What a task tells whoever runs it, as it goes. */
export interface McpTaskHooks {
  /** Input `current` of `total` is being uploaded. */
  uploading?(current: number, total: number): void;
  /** The billing checkpoint: the submit is about to be sent. */
  sending(): Promise<void>;
  /** The server accepted the task. */
  queued?(): void;
  /** The task runs upstream (once). */
  running?(upstreamState: string): void;
  /** The file is being fetched. */
  downloading?(): void;
}

/** A job's run of one task: its cancel signal and deadline, and the counts the polls keep. */
export interface McpTaskRun {
  readonly signal: AbortSignal;
  readonly deadline: number;
  running: boolean;
  pollErrors: number;
  downloadErrors: number;
  rateLimitMs: number;
}

export const newTaskRun = (job: { signal: AbortSignal; deadline: number }): McpTaskRun => ({
  signal: job.signal,
  deadline: job.deadline,
  running: false,
  pollErrors: 0,
  downloadErrors: 0,
  rateLimitMs: 0,
});

const toolCall = (ctx: LaneEnv, lane: McpLaneDialect, run: McpTaskRun): ToolCall => ({
  ctx,
  lane,
  target: mcpTarget(ctx, lane),
  signal: run.signal,
  timeoutMs: () => Math.max(1, run.deadline - Date.now()),
});

/** Uploads the inputs, then submits once; answers the task as the job's operation. */
export async function startMcpTask(
  ctx: LaneEnv,
  lane: McpLaneDialect,
  request: McpTaskRequest,
  run: McpTaskRun,
  hooks: McpTaskHooks,
): Promise<{ operation: McpOperation; id: string; state: string }> {
  const call = toolCall(ctx, lane, run);
  const refs: string[] = [];
  for (const [index, input] of request.inputs.entries()) {
    hooks.uploading?.(index + 1, request.inputs.length);
    refs.push(await lane.upload(call, input.file));
  }
  const { tool, args } = lane.submitCall(request, refs);
  // Uploads bill nothing; the submit does, once: it is never sent again by itself.
  await hooks.sending();
  const answer = await callTool(call, tool, args);
  const taskId = lane.taskIdOf(answer);
  if (!taskId)
    throw new ServiceError('MCP_TASK_ID_MISSING', `${lane.lane} accepted the generation but its answer holds no task id.`, {
      details: { lane: lane.lane, retryable: false },
    });
  hooks.queued?.();
  return { operation: { server: lane.lane, sessionId: answer.sessionId ?? null, taskId }, id: taskId, state: 'submitted' };
}

export type McpTaskStatus =
  | { readonly done: false; readonly state: string; readonly retryAfterMs?: number }
  | { readonly done: true; readonly state: string; readonly bytes: Buffer; readonly taskId: string };

/** One poll; a finished task's file downloaded (a download lost to the network is tried again at the next step, 3 times). */
export async function pollMcpTask(
  ctx: LaneEnv,
  lane: McpLaneDialect,
  media: McpMediaKind,
  stored: unknown,
  run: McpTaskRun,
  hooks: Pick<McpTaskHooks, 'running' | 'downloading'>,
): Promise<McpTaskStatus> {
  const { taskId } = mcpOperation.parse(stored);
  const call = toolCall(ctx, lane, run);
  const { tool, args } = lane.pollCall(taskId);
  let answer;
  try {
    answer = await callTool(call, tool, args);
  } catch (error) {
    if (run.signal.aborted) throw error;
    if (isRateLimit((error as Error).message)) {
      run.rateLimitMs = Math.min(RATE_LIMIT_MAX_MS, run.rateLimitMs ? run.rateLimitMs * 2 : 10_000);
      return { done: false, state: 'rate-limited', retryAfterMs: run.rateLimitMs };
    }
    run.pollErrors += 1;
    if (run.pollErrors > POLL_ERRORS_TOLERATED) throw error;
    return { done: false, state: 'unreachable' };
  }
  run.pollErrors = 0;
  const reading = lane.readTask(media, answer);
  if (reading.state === 'pending') return { done: false, state: reading.status };
  if (reading.state === 'running') {
    if (!run.running) hooks.running?.(reading.status);
    run.running = true;
    return { done: false, state: reading.status };
  }
  const where = { lane: lane.lane, taskId };
  if (reading.state === 'failed')
    throw new ServiceError('MCP_TASK_FAILED', `MCP_TASK_FAILED:${taskId}:${(reading.detail ?? reading.status).slice(0, 300)}`, {
      details: { ...where, upstreamStatus: reading.status, retryable: false },
    });
  if (reading.state === 'canceled')
    throw new ServiceError('MCP_TASK_CANCELED', `${lane.lane} task ${taskId} was canceled upstream.`, {
      details: { ...where, retryable: false },
    });
  if (!reading.url)
    throw new ServiceError('MCP_RESULT_URL_MISSING', `${lane.lane} task ${taskId} succeeded without a result URL.`, {
      details: { ...where, retryable: false },
    });
  hooks.downloading?.();
  try {
    return { done: true, state: reading.status, bytes: await downloadResult(call, reading.url, media), taskId };
  } catch (error) {
    const retryable = error instanceof ServiceError && error.details?.retryable === true;
    if (run.signal.aborted || !retryable || ++run.downloadErrors > POLL_ERRORS_TOLERATED) throw error;
    return { done: false, state: 'download-retry' };
  }
}

/** A cancel reaches the server through the protocol's tasks/cancel (its tools have no cancel). */
export async function cancelMcpTask(ctx: LaneEnv, lane: McpLaneDialect, stored: unknown): Promise<boolean> {
  const target = mcpTarget(ctx, lane);
  const { taskId } = mcpOperation.parse(stored);
  return (await mcpConnections(ctx)).cancelTask(target, taskId, { timeoutMs: CANCEL_TIMEOUT_MS });
}

export function mcpTaskTimeout(lane: McpLaneDialect, media: McpMediaKind, stored: unknown): Error {
  const taskId = mcpOperation.safeParse(stored).data?.taskId ?? null;
  return new ServiceError(
    'MCP_JOB_TIMEOUT',
    `The ${lane.lane} ${media} task${taskId ? ` ${taskId}` : ''} did not finish within its deadline (${timeoutVariable(lane.lane)}).`,
    { details: { lane: lane.lane, taskId, retryable: true } },
  );
}
