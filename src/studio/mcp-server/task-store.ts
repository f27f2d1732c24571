import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';

// The MCP tasks of the studio's MCP server (the SDK's experimental tasks): the
// SDK's in-memory store, each task bound to the job it follows, so that
// `tasks/cancel` cancels the job. The job itself is durable (the jobs table);
// a task is the MCP view of it for as long as the studio runs (after a restart,
// job_status and history still answer by requestId).

/** How long a finished task's result stays readable with tasks/result. */
export const TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client should poll tasks/get (the studio is local: often is cheap). */
export const TASK_POLL_MS = 500;

export class JobTaskStore extends InMemoryTaskStore {
  private readonly jobs = new Map<string, { requestId: string; cancel: (requestId: string) => void }>();

  /** Binds a task to its job: cancelling the task cancels the job. */
  bind(taskId: string, requestId: string, cancel: (requestId: string) => void): void {
    this.jobs.set(taskId, { requestId, cancel });
  }

  /** The requestId of a task's job. */
  requestIdOf(taskId: string): string | undefined {
    return this.jobs.get(taskId)?.requestId;
  }

  override async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status !== 'cancelled') return;
    const job = this.jobs.get(taskId);
    this.jobs.delete(taskId);
    job?.cancel(job.requestId);
  }

  override async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    await super.storeTaskResult(taskId, status, result, sessionId);
    this.jobs.delete(taskId);
  }

  /** Drops the bindings and the cleanup timers (the studio shuts down). */
  close(): void {
    this.jobs.clear();
    this.cleanup();
  }
}
