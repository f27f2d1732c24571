import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { sniffImageType, type ImageFormat } from '../../media/image-type.js';
import { callUpstream, readBytes, readJson, UpstreamError, type UpstreamResponse, type VendorError } from '../../upstream/index.js';
import type { NodeCatalog } from './binding.js';

// The node-graph server's HTTP routes the lane uses (contract:
// flow-node-graph-queue §2), each one call through the upstream client with
// its budget and the job's cancel. Failures are mapped to the lane's codes
// here, once: connection failures are FLOW_OFFLINE.

const LANE = 'flow';
/** Largest JSON answer read (a history entry holds the whole graph). */
const JSON_MAX_BYTES = 16 * 1024 * 1024;
/** Contract §3.6: the image download cap. */
export const FLOW_IMAGE_MAX_BYTES = 100 * 1024 * 1024;

export interface Call {
  readonly origin: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** A transport failure is FLOW_OFFLINE; anything else passes (the caller maps its own). */
function offline(error: unknown, origin: string): unknown {
  if (error instanceof UpstreamError && (error.failure === 'network' || (error.failure === 'timeout' && error.stage === 'connect'))) {
    return error.as('FLOW_OFFLINE', `The node-graph server at ${origin} does not answer (${error.reason ?? error.failure}).`);
  }
  return error;
}

interface CallInit {
  readonly method?: 'GET' | 'POST';
  readonly body?: string | FormData;
  readonly parseError?: (body: string, status: number) => VendorError;
}

async function call<T>(call: Call, path: string, init: CallInit, read: (response: UpstreamResponse) => Promise<T>): Promise<T> {
  try {
    return await callUpstream(
      {
        lane: LANE,
        url: `${call.origin}${path}`,
        method: init.method,
        body: init.body,
        headers: typeof init.body === 'string' ? { 'content-type': 'application/json' } : undefined,
        timeoutMs: call.timeoutMs,
        signal: call.signal,
        ...(init.parseError ? { parseError: init.parseError } : {}),
      },
      read,
    );
  } catch (error) {
    throw offline(error, call.origin);
  }
}

const systemStats = lazy(() => z.object({ system: z.object({ comfyui_version: z.string().optional() }).passthrough() }).passthrough());

/** `GET /system_stats`: the server's version (the health probe). */
export async function readSystemStats(target: Call): Promise<{ version?: string }> {
  const stats = await call(target, '/system_stats', {}, (response) => readJson(LANE, response, systemStats, JSON_MAX_BYTES));
  return { version: stats.system.comfyui_version };
}

/** `GET /object_info`: the node catalogue (params are typed from it). */
export function readObjectInfo(target: Call): Promise<NodeCatalog> {
  return call(target, '/object_info', {}, (response) =>
    readJson(
      LANE,
      response,
      z.record(z.string(), z.object({ input: z.object({}).passthrough().optional() }).passthrough()),
      JSON_MAX_BYTES,
    ),
  ) as Promise<NodeCatalog>;
}

const submitAnswer = lazy(() =>
  z.object({ prompt_id: z.string().min(1).optional(), number: z.number().optional(), node_errors: z.unknown().optional() }).passthrough(),
);

/** The server's refusal (§2.2): its words, and the nodes it named. */
function rejection(body: string): { message: string; nodes: string[] } {
  try {
    const parsed = JSON.parse(body) as {
      error?: { message?: unknown; details?: unknown } | string;
      node_errors?: Record<string, { class_type?: string; errors?: { message?: string; details?: string }[] }>;
    };
    const error =
      typeof parsed.error === 'string'
        ? parsed.error
        : [parsed.error?.message, parsed.error?.details].filter((part) => typeof part === 'string' && part).join(': ');
    const nodes =
      parsed.node_errors && typeof parsed.node_errors === 'object' && !Array.isArray(parsed.node_errors)
        ? Object.keys(parsed.node_errors)
        : [];
    return { message: error || 'refused', nodes };
  } catch {
    return { message: body.slice(0, 200) || 'refused', nodes: [] };
  }
}

/** `POST /prompt` (§2.1): the graph under our client id; answers the prompt id. */
export async function submitPrompt(
  target: Call,
  body: { prompt: unknown; client_id: string; prompt_id?: string },
): Promise<{ promptId: string; number?: number }> {
  let answer: z.infer<typeof submitAnswer>;
  // The nodes a refusal names, kept aside as the client reads the error body (its words go the usual way).
  let nodes: string[] = [];
  const parseError = (text: string): VendorError => {
    const refused = rejection(text);
    nodes = refused.nodes;
    return { message: refused.message };
  };
  try {
    answer = await call(target, '/prompt', { method: 'POST', body: JSON.stringify(body), parseError }, (response) =>
      readJson(LANE, response, submitAnswer, JSON_MAX_BYTES),
    );
  } catch (error) {
    if (error instanceof UpstreamError && error.failure === 'http') {
      const message = error.vendorMessage || 'refused';
      throw new ServiceError(
        'FLOW_SUBMIT_REJECTED',
        `The node-graph server refused the workflow (${error.status})${nodes.length ? ` at node ${nodes.join(', ')}` : ''}: ${message}`,
        {
          details: { upstreamStatus: error.status, ...(nodes.length ? { nodes } : {}) },
        },
      );
    }
    throw error;
  }
  const nodeErrors = answer.node_errors && typeof answer.node_errors === 'object' ? Object.keys(answer.node_errors) : [];
  if (nodeErrors.length)
    throw new ServiceError(
      'FLOW_SUBMIT_REJECTED',
      `The node-graph server accepted the workflow with errors at node ${nodeErrors.join(', ')}.`,
      { details: { nodes: nodeErrors } },
    );
  if (!answer.prompt_id) throw new ServiceError('FLOW_SUBMIT_REJECTED', 'The node-graph server answered without a prompt id.');
  return { promptId: answer.prompt_id, ...(answer.number !== undefined ? { number: answer.number } : {}) };
}

const fileRef = lazy(() => z.object({ filename: z.string(), subfolder: z.string().optional(), type: z.string().optional() }).passthrough());
export type FileRef = z.infer<typeof fileRef>;
const historyEntry = lazy(() =>
  z
    .object({
      outputs: z.record(z.string(), z.object({ images: z.array(fileRef).optional() }).passthrough()).optional(),
      status: z
        .object({ status_str: z.string().optional(), completed: z.boolean().optional(), messages: z.array(z.unknown()).optional() })
        .passthrough()
        .optional(),
    })
    .passthrough(),
);
export type HistoryEntry = z.infer<typeof historyEntry>;

/** `GET /history/{id}`: the entry once the prompt ended, undefined while it is queued or running (§2.4). */
export async function readHistory(target: Call, promptId: string): Promise<HistoryEntry | undefined> {
  const answer = await call(target, `/history/${encodeURIComponent(promptId)}`, {}, (response) =>
    readJson(LANE, response, z.record(z.string(), historyEntry), JSON_MAX_BYTES),
  );
  return answer[promptId];
}

const queueAnswer = lazy(() =>
  z.object({ queue_running: z.array(z.array(z.unknown())), queue_pending: z.array(z.array(z.unknown())) }).passthrough(),
);

/** Where a prompt is in `GET /queue` (§2.3): running, pending at a 1-based position (by number), or absent. */
export async function readQueuePlace(
  target: Call,
  promptId: string,
): Promise<{ state: 'running' } | { state: 'pending'; position: number } | { state: 'absent' }> {
  const queue = await call(target, '/queue', {}, (response) => readJson(LANE, response, queueAnswer, JSON_MAX_BYTES));
  if (queue.queue_running.some((item) => item[1] === promptId)) return { state: 'running' };
  const pending = [...queue.queue_pending].sort((a, b) => Number(a[0]) - Number(b[0]));
  const index = pending.findIndex((item) => item[1] === promptId);
  return index >= 0 ? { state: 'pending', position: index + 1 } : { state: 'absent' };
}

/** Contract §3.7: delete from the queue, then interrupt (deleting a running prompt does nothing); answers whether both were taken. */
export async function cancelPrompt(target: Call, promptId: string): Promise<boolean> {
  const post = (path: string, body: unknown) =>
    call(target, path, { method: 'POST', body: JSON.stringify(body) }, async () => true).catch(() => false);
  const deleted = await post('/queue', { delete: [promptId] });
  const interrupted = await post('/interrupt', { prompt_id: promptId });
  return deleted && interrupted;
}

const uploadAnswer = lazy(() =>
  z.object({ name: z.string().min(1), subfolder: z.string().optional(), type: z.string().optional() }).passthrough(),
);

/** `POST /upload/image` (§3.2): an input image, never overwriting; answers the name to inject. */
export async function uploadImage(target: Call, bytes: Buffer, filename: string, mime: string): Promise<string> {
  const form = new FormData();
  form.set('image', new Blob([new Uint8Array(bytes)], { type: mime }), filename);
  form.set('type', 'input');
  form.set('overwrite', 'false');
  try {
    const answer = await call(target, '/upload/image', { method: 'POST', body: form }, (response) =>
      readJson(LANE, response, uploadAnswer, JSON_MAX_BYTES),
    );
    return answer.subfolder ? `${answer.subfolder}/${answer.name}` : answer.name;
  } catch (error) {
    if (error instanceof UpstreamError)
      throw error.as('FLOW_SUBMIT_REJECTED', `The node-graph server refused the reference upload: ${error.message}`);
    throw error;
  }
}

const FILE_TYPES = ['output', 'input', 'temp'];

/** `GET /view` of an output (§3.6): type forced to a known one, no escaping subfolder, 100 MiB, sniffed. */
export async function downloadImage(target: Call, ref: FileRef): Promise<{ bytes: Buffer; format: ImageFormat }> {
  const subfolder = ref.subfolder ?? '';
  if (subfolder.startsWith('/') || subfolder.split(/[\\/]/).includes('..') || ref.filename.includes('/') || ref.filename.includes('..')) {
    throw new ServiceError(
      'FLOW_DOWNLOAD_FAILED',
      `The node-graph server named an output outside its folders (${JSON.stringify(`${subfolder}/${ref.filename}`.slice(0, 200))}).`,
    );
  }
  const type = FILE_TYPES.includes(ref.type ?? '') ? (ref.type as string) : 'output';
  const query = new URLSearchParams({ filename: ref.filename, subfolder, type });
  let bytes: Buffer;
  try {
    bytes = await call(target, `/view?${query.toString()}`, {}, (response) => readBytes(LANE, response, FLOW_IMAGE_MAX_BYTES));
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (error instanceof UpstreamError)
      throw error.as('FLOW_DOWNLOAD_FAILED', `The image ${ref.filename} could not be downloaded: ${error.message}`);
    throw error;
  }
  const format = sniffImageType(bytes);
  if (!format)
    throw new ServiceError('FLOW_IMAGE_INVALID', `The file ${ref.filename} the workflow produced is not a PNG, JPEG or WebP image.`, {
      details: { filename: ref.filename, bytes: bytes.length },
    });
  return { bytes, format };
}
