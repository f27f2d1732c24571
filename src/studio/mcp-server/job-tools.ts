import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { parseWith, type ValidationOptions } from '../../common/validation.js';
import { ServiceError } from '../errors.js';
import type { JobKind } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { fingerprintOf } from '../jobs/delivery.js';
import { imageJob, planImageJob } from '../jobs/plan.js';
import type { JobSpec } from '../jobs/running-job.js';
import { planTrace } from '../jobs/trace-job.js';
import { IMAGE_HINTS, imageFields } from '../routes/generate.js';
import { planVideoGenerate } from '../video/plan.js';
import { submitAndFollow } from '../jobs/follow.js';
import { progressSteps, type ProgressStep } from './follow.js';
import { errorToolResult, jobToolResult } from './results.js';
import { PASS_THROUGH, TOOL_INPUTS, type ToolName } from './schemas.js';
import { TASK_POLL_MS, TASK_TTL_MS, type JobTaskStore } from './task-store.js';

// The tools that make something: each is a job planned by the same planner as
// its HTTP route, run by the engine like any other. Every one runs as an MCP
// task when the client asks (`params.task`); otherwise the SDK runs the same
// task and answers when it ends. Progress notifications follow the job's
// events when the call carries a progressToken; a cancelled call or task
// cancels the job.

type Input<N extends ToolName> = ReturnType<(typeof TOOL_INPUTS)[N]['parse']>;

interface JobTool<N extends ToolName> {
  readonly name: N;
  readonly title: string;
  readonly description: string;
  /** The job's planner: the same as the HTTP route's (everything checked before the job is accepted). */
  plan(ctx: StudioContext, input: Input<N>, requestId: string): Promise<JobSpec<JobKind>>;
  /** The parse options of the HTTP route (code, hints). */
  readonly parse?: ValidationOptions<typeof ServiceError>;
}

const generateImage: JobTool<'generate_image'> = {
  name: 'generate_image',
  title: 'Generate an image',
  description:
    "Generates an image from a prompt on one of the studio's lanes. The image lands in the studio's history; the result carries it (inline up to 1 MiB, else a resource link) and its history name.",
  parse: { hints: IMAGE_HINTS },
  async plan(ctx, input, requestId) {
    const plan = await planImageJob(ctx, [{ requestId, fields: imageFields(input) }], { references: input.references }, 'generate');
    return { ...imageJob(plan, requestId), kind: 'generate', request: plan.request };
  },
};

const editImage: JobTool<'edit_image'> = {
  name: 'edit_image',
  title: 'Edit an image',
  description:
    'Edits an image (a history file name or image data) by a prompt, with an optional mask where the lane has one. The result lands in history like a generation.',
  parse: { hints: IMAGE_HINTS },
  async plan(ctx, { image, mask, ...input }, requestId) {
    const plan = await planImageJob(
      ctx,
      [{ requestId, fields: imageFields(input) }],
      { references: input.references, edit: { image, mask } },
      'edit',
    );
    return { ...imageJob(plan, requestId), kind: 'edit', request: plan.request };
  },
};

const generateVideo: JobTool<'generate_video'> = {
  name: 'generate_video',
  title: 'Generate a video',
  description:
    'Generates a video (text-, image- or reference-to-video, or a storyboard of clips). Long: run it as a task, or send a progressToken to follow it. The MP4 lands in history; the result links it as a resource.',
  plan: (ctx, input, requestId) => planVideoGenerate(ctx, input, requestId),
};

const traceToSvg: JobTool<'trace_to_svg'> = {
  name: 'trace_to_svg',
  title: 'Trace an image to SVG',
  description:
    'Traces a raster image of history (PNG, JPEG, WebP) into a vector SVG, saved to history beside it. Tracer parameters are given as text, as on the HTTP route.',
  parse: { code: 'TRACE_PARAMETER_INVALID', errors: ServiceError },
  plan: async (ctx, { source, preset, requestId: _id, priority: _priority, ...parameters }, requestId) =>
    planTrace(ctx, { source, preset, parameters }, requestId),
};

export const JOB_TOOLS = [generateImage, editImage, generateVideo, traceToSvg] as const;

/** Tracer parameters the route reads as text: a number from a JSON client is the same value. */
const asQueryText = (args: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(args).map(([key, value]) => [key, typeof value === 'number' && key !== 'priority' ? String(value) : value]),
  );

/** Registers the job tools on a server, each as a task-capable tool; results in the content types of the session's protocol version. */
export function registerJobTools(server: McpServer, ctx: StudioContext, store: JobTaskStore, protocolVersion: string): void {
  const cancel = (requestId: string) => void ctx.jobs.cancel(requestId, 'The MCP client cancelled the job.').catch(() => {});
  for (const tool of JOB_TOOLS as readonly JobTool<ToolName>[]) {
    server.experimental.tasks.registerToolTask(
      tool.name,
      // The SDK's own check is bypassed (any object): the studio's schema checks the input in createTask, so a refusal carries the studio's code.
      { title: tool.title, description: tool.description, inputSchema: PASS_THROUGH, execution: { taskSupport: 'optional' } },
      {
        async createTask(args, extra) {
          const task = await extra.taskStore.createTask({ ttl: TASK_TTL_MS, pollInterval: TASK_POLL_MS });
          const finish = (result: CallToolResult) =>
            // A cancelled task keeps its state: its job's error has nowhere to go.
            extra.taskStore.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result).catch(() => {});
          let requestId: string | undefined;
          try {
            const raw = tool.name === 'trace_to_svg' ? asQueryText(args as Record<string, unknown>) : args;
            const input = parseWith(TOOL_INPUTS[tool.name] as never, raw, tool.parse) as Input<ToolName> & {
              requestId?: string;
              priority?: number;
            };
            requestId = input.requestId ?? randomUUID();
            const planned = await tool.plan(ctx, input as never, requestId);
            const job: JobSpec<JobKind> = {
              ...planned,
              ...(input.priority !== undefined ? { priority: input.priority } : {}),
              fingerprint: fingerprintOf(planned.kind, input),
            };
            const onStep = stepReporter(server, extra, task.taskId);
            const followed = await submitAndFollow(ctx, job, progressSteps(onStep));
            store.bind(task.taskId, followed.requestId, cancel);
            // A call the client cancels (notifications/cancelled), or a session that closes under a running call, cancels its job.
            extra.signal.addEventListener('abort', () => cancel(followed.requestId), { once: true });
            void followed.outcome
              .then((result) => jobToolResult(ctx, followed.requestId, result, protocolVersion))
              .catch((error: unknown) => errorToolResult(ctx, error, followed.requestId))
              .then(finish);
          } catch (error) {
            await finish(errorToolResult(ctx, error, requestId));
          }
          return { task };
        },
        getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
      },
    );
  }
}

/**
 * Each progress step: the task's status message, and a progress notification when the call
 * carries a progressToken: on the call's own stream while it is open, else (a task's call has
 * answered) on the session's stream, where the client's handler for the token still listens.
 */
function stepReporter(server: McpServer, extra: CreateTaskRequestHandlerExtra, taskId: string): (step: ProgressStep) => void {
  const token = extra._meta?.progressToken;
  return (step) => {
    void extra.taskStore.updateTaskStatus(taskId, 'working', step.message).catch(() => {});
    if (token === undefined) return;
    const notification: ServerNotification = { method: 'notifications/progress', params: { progressToken: token, ...step } };
    void extra.sendNotification(notification).catch(() => server.server.notification(notification).catch(() => {}));
  };
}
