import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { ownValue } from '../../../common/own.js';
import { parseSize } from '../../api/index.js';
import type { FlowWorkflow } from '../../api/flow.js';
import type { LaneEnv } from '../env.js';
import type { LaneImageRequest, LaneJob, LaneSteps, StepStatus, UpstreamOperation } from '../types.js';
import { workflowOptions } from './binding.js';
import { flowCatalog } from './catalog.js';
import { injectGraph } from './inject.js';
import {
  cancelPrompt,
  downloadImage,
  readHistory,
  readQueuePlace,
  submitPrompt,
  uploadImage,
  type Call,
  type HistoryEntry,
} from './server.js';
import { flowClientId, flowSockets } from './sockets.js';

// One flow job as steps of the engine (contract: flow-workflow-catalog §3):
// start re-reads the workflow, uploads the reference, injects into a copy of
// the graph and submits it under our client id; each status call waits on the
// shared socket for the prompt's end or a queue change (at most a second),
// then reads `/history` (the source of truth) or `/queue` (the place while
// waiting). The operation `{ origin, promptId, clientId, ... }` is stored on
// the job, so a restarted studio re-attaches to the same prompt.

const operationSchema = lazy(() =>
  z.object({
    origin: z.string(),
    promptId: z.string().min(1),
    clientId: z.string(),
    workflowId: z.string(),
    outputNode: z.string(),
  }),
);
type FlowOperation = z.infer<typeof operationSchema>;

/** One status call waits this long for news on the socket before it looks itself. */
const LONG_POLL_MS = 1_000;
/** With the socket up and no news, `/history` is still read this often (a message can be lost). */
const HISTORY_EVERY_MS = 5_000;
/** Contract §3.5: absent from history and queue this many looks in a row, a second apart → vanished. */
const ABSENT_LIMIT = 3;
const ABSENT_WAIT_MS = 1_000;
/** Ended on the socket, not yet in history: looked up again this often, this many times. */
const UNRECORDED_WAIT_MS = 100;
const UNRECORDED_LIMIT = 100;
/** One HTTP call's budget (within the job's deadline). */
const CALL_MS = 30_000;
/** Contract §3.3: an edit's prompt. */
const EDIT_PREFIX = 'Edit this image: ';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const target = (origin: string, job: Pick<LaneJob, 'deadline' | 'signal'>): Call => ({
  origin,
  timeoutMs: Math.max(1, Math.min(CALL_MS, job.deadline - Date.now())),
  signal: job.signal,
});

const bindMissing = (workflow: FlowWorkflow, what: string, field: string) =>
  new ServiceError(
    'FLOW_WORKFLOW_BIND_INVALID',
    `The workflow "${workflow.id}" binds no ${field}, so it cannot take ${what}; register it again with a ${field} binding.`,
    { details: { workflow: workflow.id, bindField: field } },
  );

/** The request's values for the workflow, refusing what it has no place for (never dropped silently). */
function valuesOf(workflow: FlowWorkflow, request: LaneImageRequest) {
  const { bind } = workflow;
  const parsed = workflowOptions(bind, workflow.params).safeParse(request.options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServiceError(
      'BAD_REQUEST',
      `options.${issue.path.map(String).join('.')}: ${issue.message} (the workflow "${workflow.id}" changed since the job was accepted?)`,
      { details: { lane: 'flow', field: `options.${issue.path.map(String).join('.')}` } },
    );
  }
  const { seed, ...params } = parsed.data as Record<string, unknown>;
  if (request.negativePrompt !== undefined && !bind.negativePrompt) throw bindMissing(workflow, 'a negative prompt', 'negativePrompt');
  // `WxH` fills the bound size; anything else (`auto`) leaves the stored one.
  const size = request.size ? parseSize(request.size) : undefined;
  if (size && (!bind.width || !bind.height)) throw bindMissing(workflow, `size ${request.size}`, !bind.width ? 'width' : 'height');
  const input = request.image ?? request.references[0];
  if (input && !bind.refImage) throw bindMissing(workflow, request.image ? 'an image to edit' : 'a reference image', 'refImage');
  return { size, seed: typeof seed === 'number' ? seed : undefined, params, input };
}

/** The first image of the output node (else of any output node with images), as the contract reads a history entry. */
function outputImage(entry: HistoryEntry, outputNode: string) {
  const outputs = entry.outputs ?? {};
  const images = ownValue(outputs, outputNode)?.images?.length
    ? ownValue(outputs, outputNode)?.images
    : Object.values(outputs).find((output) => output.images?.length)?.images;
  return images?.[0];
}

/** The server's words of a failed prompt: its last status message. */
function failureOf(entry: HistoryEntry): { interrupted: boolean; message: string } {
  const messages = entry.status?.messages ?? [];
  const last = messages[messages.length - 1] as [string, Record<string, unknown>] | undefined;
  if (last?.[0] === 'execution_interrupted') return { interrupted: true, message: 'the prompt was interrupted on the node-graph server' };
  const said = last?.[1]?.exception_message;
  return { interrupted: false, message: typeof said === 'string' ? said.slice(0, 500) : `status ${entry.status?.status_str ?? 'unknown'}` };
}

async function finish(
  ctx: LaneEnv,
  request: LaneImageRequest,
  operation: FlowOperation,
  entry: HistoryEntry,
  job: LaneJob,
): Promise<StepStatus> {
  if (entry.status?.completed !== true) {
    const { message } = failureOf(entry);
    throw new ServiceError('FLOW_EXECUTION_FAILED', `The workflow failed on the node-graph server: ${message}.`, {
      details: { workflow: operation.workflowId, promptId: operation.promptId, origin: operation.origin },
    });
  }
  const ref = outputImage(entry, operation.outputNode);
  if (!ref)
    throw new ServiceError('FLOW_NO_IMAGE', `The workflow "${operation.workflowId}" finished without an image.`, {
      details: { workflow: operation.workflowId, promptId: operation.promptId, outputNode: operation.outputNode },
    });
  const image = await downloadImage(target(operation.origin, job), ref);
  const settings = {
    workflow: operation.workflowId,
    promptId: operation.promptId,
    origin: operation.origin,
    ...(request.size ? { size: request.size } : {}),
    ...request.options,
  };
  return { done: true, state: 'success', result: { images: [image], settings } };
}

export const flowSteps: LaneSteps = {
  edits: true,
  // A status call waits on the socket itself (LONG_POLL_MS), so the engine need not wait between calls.
  pollIntervalsMs: [0],
  async start(ctx, request, job) {
    // Re-read the workflow now (contract §3.1): it may have changed since the job was accepted.
    const workflow = flowCatalog(ctx).require(request.model.id);
    const { size, seed, params, input } = valuesOf(workflow, request);
    job.phase('planning');
    const call = target(workflow.origin, job);
    const sockets = flowSockets(ctx).of(workflow.origin);
    // Our own prompt id (the request's when it is a UUID), so the socket can route the prompt's first messages.
    const promptId = UUID.test(request.requestId) ? request.requestId.toLowerCase() : randomUUID();
    const watch = sockets.watch(promptId, job);
    try {
      let refImage: string | undefined;
      if (input) {
        const extension = input.mime === 'image/jpeg' ? 'jpg' : input.mime === 'image/webp' ? 'webp' : 'png';
        refImage = await uploadImage(call, input.bytes, `svc_${Date.now()}_${promptId.slice(0, 8)}.${extension}`, input.mime);
      }
      const graph = injectGraph(workflow, {
        prompt: request.image ? `${EDIT_PREFIX}${request.prompt}` : request.prompt,
        negativePrompt: request.negativePrompt,
        width: size?.width,
        height: size?.height,
        seed,
        refImage,
        params,
      });
      // The socket first (briefly): a prompt's messages go only to a connected client.
      await Promise.race([sockets.socket.open().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await job.sending();
      // Its budget from now (the wait above took part of the job's).
      const submitted = await submitPrompt(target(workflow.origin, job), {
        prompt: graph,
        client_id: flowClientId(ctx),
        prompt_id: promptId,
      });
      let followed = watch;
      if (submitted.promptId !== promptId) {
        // An older server chose its own id: follow that one.
        sockets.release(promptId);
        followed = sockets.watch(submitted.promptId, job);
      }
      // Just submitted on a live socket: nothing to read from history before the socket says so.
      if (sockets.connected) followed.checkHistory = false;
      const operation: FlowOperation = {
        origin: workflow.origin,
        promptId: submitted.promptId,
        clientId: flowClientId(ctx),
        workflowId: workflow.id,
        outputNode: workflow.bind.output.node,
      };
      return { operation, id: submitted.promptId, state: followed.started ? 'running' : 'queued' };
    } catch (error) {
      sockets.release(promptId);
      // A cancel while the submit was under way: the server may hold the prompt, under our id.
      if (job.signal.aborted) await cancelPrompt({ origin: workflow.origin, timeoutMs: 5_000 }, promptId);
      throw error;
    }
  },
  async status(ctx, request, stored, job): Promise<StepStatus> {
    const operation = operationSchema.parse(stored);
    const sockets = flowSockets(ctx).of(operation.origin);
    const watch = sockets.watch(operation.promptId, job);
    try {
      await watch.next(Math.max(0, Math.min(LONG_POLL_MS, job.deadline - Date.now())), job.signal);
      // Past the deadline: the engine ends the job with FLOW_TIMEOUT (and the prompt is cancelled).
      if (Date.now() >= job.deadline) return { done: false, state: watch.started ? 'running' : 'queued' };
      const due = watch.finished || watch.checkHistory || !sockets.connected || Date.now() - watch.lastHistoryAt >= HISTORY_EVERY_MS;
      if (due) {
        watch.checkHistory = false;
        watch.lastHistoryAt = Date.now();
        const entry = await readHistory(target(operation.origin, job), operation.promptId);
        if (entry) {
          sockets.release(operation.promptId);
          return await finish(ctx, request, operation, entry, job);
        }
      }
      if (watch.finished) {
        // The socket said it ended; its history entry follows (a server writes it after the message).
        watch.checkHistory = true;
        watch.unrecorded += 1;
        if (watch.unrecorded > UNRECORDED_LIMIT)
          throw new ServiceError(
            'FLOW_EXECUTION_FAILED',
            'The node-graph server said the prompt ended but keeps no history entry for it.',
            { details: { promptId: operation.promptId, origin: operation.origin } },
          );
        return { done: false, state: 'finishing', retryAfterMs: UNRECORDED_WAIT_MS };
      }
      if (due || (watch.queueChanged && !watch.started)) {
        watch.queueChanged = false;
        const place = await readQueuePlace(target(operation.origin, job), operation.promptId);
        if (place.state === 'absent') {
          // It may have ended between the two reads: history is read again at the next call.
          watch.checkHistory = true;
          watch.absent += 1;
          if (watch.absent >= ABSENT_LIMIT) {
            throw new ServiceError(
              'FLOW_EXECUTION_FAILED',
              'The prompt vanished from the node-graph server (in neither its history nor its queue: restarted, or its history cleared).',
              { details: { promptId: operation.promptId, origin: operation.origin } },
            );
          }
          return { done: false, state: 'unknown', retryAfterMs: ABSENT_WAIT_MS };
        }
        watch.absent = 0;
        if (place.state === 'pending') {
          if (watch.position !== place.position) job.queuePosition?.(place.position);
          watch.position = place.position;
          return { done: false, state: 'queued' };
        }
        watch.begin();
      }
      return { done: false, state: watch.started ? 'running' : 'queued' };
    } catch (error) {
      sockets.release(operation.promptId);
      throw error;
    }
  },
  async cancel(ctx, stored) {
    const operation = operationSchema.safeParse(stored);
    if (!operation.success) return false;
    flowSockets(ctx).of(operation.data.origin).release(operation.data.promptId);
    return cancelPrompt({ origin: operation.data.origin, timeoutMs: 5_000 }, operation.data.promptId);
  },
  timeout(stored: UpstreamOperation | null, timeoutMs: number) {
    const operation = operationSchema.safeParse(stored);
    // Contract §3.7: past the deadline the prompt is cancelled too (not awaited: the job ends now).
    if (operation.success) void cancelPrompt({ origin: operation.data.origin, timeoutMs: 5_000 }, operation.data.promptId);
    return new ServiceError('FLOW_TIMEOUT', `The workflow did not finish within ${Math.round(timeoutMs / 1000)} s (SVC_FLOW_TIMEOUT_MS).`, {
      details: { timeoutMs, ...(operation.success ? { promptId: operation.data.promptId, origin: operation.data.origin } : {}) },
    });
  },
};
