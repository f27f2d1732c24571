import { ServiceError } from '../../errors.js';
import { imageInput, plannedTask } from './planned.js';
import { sniffImageType } from '../../media/image-type.js';
import type { LaneEnv } from '../env.js';
import type { LaneAdapter, LaneImageRequest, LaneJob, LaneSteps } from '../types.js';
import type { McpModel } from './catalog.js';
import type { McpLaneDialect, McpTaskRequest } from './dialect.js';
import { checkExecutable, mcpLaneStatus } from './servers.js';
import { cancelMcpTask, mcpPollIntervals, mcpTaskTimeout, newTaskRun, pollMcpTask, startMcpTask, type McpTaskRun } from './task.js';

// An MCP lane's image capability: the ordinary image adapter, as steps (one
// MCP task: uploads and the submit, then one poll per step), so POST
// /api/generate, /v1/images/*, the MCP server's generate_image, Classic and
// Node reach it like any image lane. The request's `options` are the model's
// own declared parameters plus `ratio` (model-specs.ts); its references are
// the model's `image_references`. A lane that is locked (eta's plan) or not
// connected is refused before the job is accepted.

/** The task of an image request: a task the MCP route planned as it is; else the options split into the ratio and the model's parameters, the references as its inputs. */
export function imageTaskOf(request: LaneImageRequest): McpTaskRequest {
  const base = { media: 'image' as const, prompt: request.prompt, model: request.model.upstreamId };
  const planned = plannedTask(request.options);
  if (planned) return { ...base, ...planned };
  const { ratio, ...parameters } = request.options as Record<string, string | number | boolean>;
  return {
    ...base,
    ratio: typeof ratio === 'string' ? ratio : null,
    parameters,
    inputs: request.references.map((reference, index) => imageInput('image_references', reference, index)),
  };
}

/** A model that takes no reference images is refused one (MCP_INPUT_ROLE_UNSUPPORTED), before anything is sent. */
async function checkInputs(ctx: LaneEnv, lane: McpLaneDialect, task: McpTaskRequest): Promise<void> {
  if (!task.inputs.length) return;
  const model: McpModel | undefined = (await lane.models(ctx)).find((entry) => entry.id === task.model && entry.kind === 'image');
  if (model && !model.inputRoles.includes('image_references')) {
    throw new ServiceError(
      'MCP_INPUT_ROLE_UNSUPPORTED',
      `${model.id} does not take image_references (references); it takes: ${model.inputRoles.join(', ')}.`,
      { details: { field: 'references', role: 'image_references', model: model.id, valid: model.inputRoles } },
    );
  }
}

/** Each run of a job keeps its poll counts (a restarted job starts them afresh). */
const runs = new WeakMap<LaneJob, McpTaskRun>();
const runOf = (job: LaneJob): McpTaskRun => {
  let run = runs.get(job);
  if (!run) {
    run = newTaskRun(job);
    runs.set(job, run);
  }
  return run;
};

export function mcpImageSteps(lane: McpLaneDialect): LaneSteps {
  return {
    edits: false,
    pollIntervalsMs: mcpPollIntervals,
    async start(ctx, request, job) {
      const task = imageTaskOf(request);
      await checkInputs(ctx, lane, task);
      job.phase('planning');
      return startMcpTask(ctx, lane, task, runOf(job), {
        uploading: (current, total) => job.progress?.({ value: current, max: total }),
        async sending() {
          await job.sending();
          job.phase('rendering');
        },
      });
    },
    async status(ctx, _request, operation, job) {
      const status = await pollMcpTask(ctx, lane, 'image', operation, runOf(job), { running: () => job.phase('rendering') });
      if (!status.done) return status;
      const format = sniffImageType(status.bytes) ?? 'png';
      return {
        done: true,
        state: status.state,
        result: { images: [{ bytes: status.bytes, format }], settings: { taskId: status.taskId } },
      };
    },
    cancel: (ctx, operation) => cancelMcpTask(ctx, lane, operation),
    timeout: (operation) => mcpTaskTimeout(lane, 'image', operation),
  };
}

/** The image adapter of an MCP lane: its readiness (locked > disconnected > ready), its preflight, its steps. */
export function mcpImageAdapter(lane: McpLaneDialect): LaneAdapter {
  return {
    specificationVersion: 'v1',
    probe: async (ctx) => mcpLaneStatus(ctx, lane),
    preflight: (ctx) => checkExecutable(ctx, lane),
    // The lock and the connection come before the model; a live catalog is read (cached) so the model resolves against it.
    async prepare(ctx) {
      checkExecutable(ctx, lane);
      await lane.models(ctx);
    },
    steps: mcpImageSteps(lane),
  };
}
