import { randomUUID } from 'node:crypto';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { renderImage } from '../image-renderer.js';
import { renderSimVideo, simVideoSize } from '../alpha/video-render.js';
import { parsePromptTriggers, type PromptTriggers } from '../prompt-triggers.js';

// A simulated generation task of an MCP media server: queued for the first
// third of `latencyMs`, running until `latencyMs`, then finished with a real
// file (a PNG from the procedural renderer, a small H.264 MP4). Prompt
// triggers script the failures: `[sim:failed]`, `[sim:canceled]`,
// `[sim:no-url]` (succeeded without a link), `[sim:no-id]` (the submit answer
// holds no task id), `[sim:never]` (runs forever).

export const MCP_SIM_TRIGGERS = ['failed', 'canceled', 'no-url', 'no-id', 'never'] as const;
export type McpSimTrigger = (typeof MCP_SIM_TRIGGERS)[number];

export type SimTaskState = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

export interface SimTaskSpec {
  readonly kind: 'image' | 'video';
  readonly prompt: string;
  readonly model: string;
  readonly ratio: string;
  readonly durationSeconds: number;
  readonly resolution: string;
}

export interface SimTask {
  readonly id: string;
  readonly spec: SimTaskSpec;
  readonly triggers: PromptTriggers<McpSimTrigger>;
  readonly createdAt: number;
  canceled: boolean;
  output?: Promise<string>;
}

/** Pixel size of an image for a ratio (`auto`: square), the long side 1024, sides even. */
function imageSize(ratio: string): { width: number; height: number } {
  const [w, h] = ratio.split(':').map(Number);
  if (!(w > 0 && h > 0)) return { width: 1024, height: 1024 };
  const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);
  return w >= h ? { width: 1024, height: even((1024 * h) / w) } : { width: even((1024 * w) / h), height: 1024 };
}

export class SimTasks {
  private readonly tasks = new Map<string, SimTask>();

  constructor(
    private readonly latencyMs: number,
    private readonly publish: (bytes: Buffer, mime: string, extension: string) => string,
  ) {}

  create(spec: SimTaskSpec): SimTask {
    const { triggers, cleaned } = parsePromptTriggers(spec.prompt, MCP_SIM_TRIGGERS);
    const task: SimTask = { id: randomUUID(), spec: { ...spec, prompt: cleaned }, triggers, createdAt: Date.now(), canceled: false };
    this.tasks.set(task.id, task);
    return task;
  }

  get(id: string): SimTask | undefined {
    return this.tasks.get(id);
  }

  all(): SimTask[] {
    return [...this.tasks.values()];
  }

  /** The task's state now; a finished one has its file rendered (once) and published. */
  async read(task: SimTask): Promise<{ state: SimTaskState; url?: string; reason?: string }> {
    if (task.canceled || task.triggers.has('canceled')) return { state: 'canceled', reason: 'Canceled by the user.' };
    const elapsed = Date.now() - task.createdAt;
    if (task.triggers.has('never') || elapsed < this.latencyMs / 3) return { state: 'queued' };
    if (elapsed < this.latencyMs) return { state: 'running' };
    if (task.triggers.has('failed')) return { state: 'failed', reason: 'The model refused the prompt (simulated failure).' };
    if (task.triggers.has('no-url')) return { state: 'succeeded' };
    task.output ??= this.render(task.spec);
    return { state: 'succeeded', url: await task.output };
  }

  private async render(spec: SimTaskSpec): Promise<string> {
    if (spec.kind === 'image') {
      const { width, height } = imageSize(spec.ratio);
      return this.publish(await renderImage({ prompt: spec.prompt, width, height, format: 'png' }), 'image/png', 'png');
    }
    const { width, height } = simVideoSize(spec.resolution, spec.ratio);
    return this.publish(
      await renderSimVideo({ prompt: spec.prompt, width, height, durationSeconds: spec.durationSeconds }),
      'video/mp4',
      'mp4',
    );
  }
}

const TASK_STATUS: Record<SimTaskState, 'working' | 'completed' | 'failed' | 'cancelled'> = {
  queued: 'working',
  running: 'working',
  succeeded: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
};

/**
 * The protocol's task methods (contract: mcp-streamable-http §6.2) over the
 * same tasks: `tasks/get` answers a task object (`working`, `completed`,
 * `failed`, `cancelled`, with `pollInterval`), `tasks/cancel` cancels one, for
 * the SDK server's `taskStore` option. Tasks are made by the tools, not by
 * task-augmented calls (those are refused).
 */
export function simTaskStore(
  tasks: SimTasks,
  pollIntervalMs: number,
  onCancel: (taskId: string, sessionId: string | undefined) => void,
): TaskStore {
  const objectOf = async (task: SimTask): Promise<Task> => {
    const reading = await tasks.read(task);
    const created = new Date(task.createdAt).toISOString();
    return {
      taskId: task.id,
      status: TASK_STATUS[reading.state],
      ...(reading.reason ? { statusMessage: reading.reason } : {}),
      createdAt: created,
      lastUpdatedAt: new Date().toISOString(),
      ttl: null,
      pollInterval: pollIntervalMs,
    };
  };
  const refused = () => Promise.reject(new Error('Task-augmented calls are not supported: the tools answer a task id.'));
  return {
    createTask: refused,
    storeTaskResult: refused,
    getTaskResult: refused,
    async getTask(taskId) {
      const task = tasks.get(taskId);
      return task ? objectOf(task) : null;
    },
    async updateTaskStatus(taskId, status, _message, sessionId) {
      const task = tasks.get(taskId);
      if (!task) throw new Error(`Task ${taskId} not found.`);
      if (status === 'cancelled') {
        task.canceled = true;
        onCancel(taskId, sessionId);
      }
    },
    async listTasks() {
      return { tasks: await Promise.all(tasks.all().map(objectOf)) };
    },
  };
}
