import { z } from 'zod';
import type { VideoClipRequest, VideoDurations, VideoGenerateMode, VideoJob, VideoModel, VideoModelSpec } from '../video-model.js';
import type { McpModel, McpParameter } from './catalog.js';
import type { McpLaneDialect, McpTaskRequest } from './dialect.js';
import { imageInput, plannedTask } from './planned.js';
import { checkExecutable } from './servers.js';
import {
  cancelMcpTask,
  MCP_DEADLINE_MS,
  mcpPollIntervals,
  mcpTaskTimeout,
  mcpTimeoutOverride,
  newTaskRun,
  pollMcpTask,
  startMcpTask,
  type McpTaskRun,
} from './task.js';

// An MCP lane's video capability (lanes/video-model.ts): its video models
// with their limits as data, read from each model's declarations (its
// `duration` and `resolution` parameters, its aspect ratios, its input roles
// as modes), its other parameters as the model's own options; a clip is one
// MCP task (uploads and the submit, then one poll per step). The spec's
// video rules are alpha's; an MCP model's rules are what it declares
// (contract §1), plus the lane's rules of single models (zeta: veo-3.1,
// gen-4.5).

const isNumber = (value: unknown): value is number => typeof value === 'number';

function durationsOf(parameter: McpParameter | undefined): VideoDurations {
  const values = parameter?.options?.filter(isNumber) ?? [];
  if (values.length) return { values };
  return { min: parameter?.min ?? 1, max: parameter?.max ?? 60 };
}

function modesOf(model: McpModel): VideoGenerateMode[] {
  const modes: VideoGenerateMode[] = [];
  if (model.inputRoles.includes('text')) modes.push('text-to-video');
  if (model.inputRoles.includes('start_image')) modes.push('image-to-video');
  if (model.inputRoles.includes('image_references')) modes.push('reference-to-video');
  return modes;
}

/** The parameters a clip carries as fields of its own (duration, resolution); the rest are the model's options. */
const CLIP_FIELDS = new Set(['duration', 'resolution']);

function optionSchema(parameter: McpParameter): z.ZodType {
  const { options } = parameter;
  if (options?.length) return z.literal([...options]).optional();
  if (parameter.type === 'number')
    return z
      .number()
      .min(parameter.min ?? -Infinity)
      .max(parameter.max ?? Infinity)
      .optional();
  return (parameter.type === 'boolean' ? z.boolean() : z.string()).optional();
}

/** A video model of an MCP lane as the video capability lists it. */
export function mcpVideoSpec(model: McpModel): VideoModelSpec {
  const duration = model.parameters.find((entry) => entry.name === 'duration');
  const resolution = model.parameters.find((entry) => entry.name === 'resolution');
  const durations = durationsOf(duration);
  const resolutions = (resolution?.options ?? []).map(String);
  const modes = modesOf(model);
  const own = model.parameters.filter((entry) => !CLIP_FIELDS.has(entry.name));
  return {
    id: model.id,
    description: `${model.description ? `${model.description}; ` : ''}video over MCP; inputs ${model.inputRoles.join(', ')}.`,
    limits: {
      modes,
      durations,
      resolutions,
      defaultDuration: isNumber(duration?.default) ? duration.default : 'values' in durations ? durations.values[0] : durations.min,
      ...(typeof resolution?.default === 'string' ? { defaultResolution: resolution.default } : {}),
      aspectRatios: model.aspectRatios,
      // §3: at most three reference images (one is a first frame: image-to-video).
      ...(modes.includes('reference-to-video') ? { references: { min: 2, max: 3 } } : {}),
    },
    options: z.object(Object.fromEntries(own.map((entry) => [entry.name, optionSchema(entry)]))).strict(),
  };
}

/** The task of a clip: a task the MCP route planned as it is; else the clip's fields and options as parameters, its images as the mode's inputs. */
function videoTaskOf(lane: McpLaneDialect, clip: VideoClipRequest): McpTaskRequest {
  const base = { media: 'video' as const, prompt: clip.prompt, model: clip.model.upstreamId };
  const planned = plannedTask(clip.options);
  if (planned) return { ...base, ...planned };
  const role = clip.mode === 'image-to-video' ? 'start_image' : 'image_references';
  const inputs = clip.images.map((image, index) => imageInput(role, image, index));
  const given = {
    ...(clip.options as Record<string, string | number | boolean>),
    duration: clip.duration,
    ...(clip.resolution ? { resolution: clip.resolution } : {}),
  };
  const parameters =
    lane.rules?.(
      clip.model.upstreamId,
      given,
      inputs.map((input) => input.role),
    ) ?? given;
  return { ...base, ratio: clip.aspectRatio ?? null, parameters, inputs };
}

/** Each run of a clip keeps its poll counts (a restarted job starts them afresh). */
const runs = new WeakMap<VideoJob, McpTaskRun>();
const runOf = (job: VideoJob): McpTaskRun => {
  let run = runs.get(job);
  if (!run) {
    run = newTaskRun(job);
    runs.set(job, run);
  }
  return run;
};

/** The video capability of an MCP lane over its catalog (`models`: read each time, eta's is live). */
export function mcpVideoModel(lane: McpLaneDialect, catalog: () => readonly McpModel[]): VideoModel {
  return {
    specificationVersion: 'v1',
    get models() {
      return catalog()
        .filter((model) => model.kind === 'video')
        .map(mcpVideoSpec);
    },
    defaultModel: lane.defaults.video,
    preflight: (ctx) => checkExecutable(ctx, lane),
    reachesUpstreamAtStart: false,
    pollIntervalsMs: mcpPollIntervals,
    budgetMs: (ctx) => mcpTimeoutOverride(ctx, lane.lane) ?? MCP_DEADLINE_MS.video,
    async start(ctx, clip, job) {
      return startMcpTask(ctx, lane, videoTaskOf(lane, clip), runOf(job), {
        uploading: (current, total) => job.progress({ state: 'uploading', fraction: current / total }),
        async sending() {
          await job.sending();
          job.rendering();
        },
      });
    },
    async status(ctx, _clip, operation, job) {
      // The task running upstream is worth showing (once), like the uploads.
      const status = await pollMcpTask(ctx, lane, 'video', operation, runOf(job), { running: (state) => job.progress({ state }) });
      if (!status.done) return { done: false, state: status.state, ...(status.retryAfterMs ? { retryAfterMs: status.retryAfterMs } : {}) };
      return { done: true, state: status.state, output: { bytes: status.bytes }, settings: { taskId: status.taskId } };
    },
    cancel: (ctx, operation) => cancelMcpTask(ctx, lane, operation),
    timeout: (_clip, operation) => mcpTaskTimeout(lane, 'video', operation),
  };
}
