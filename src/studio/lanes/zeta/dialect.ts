import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpMediaKind } from '../mcp-media/catalog.js';
import type { McpLaneDialect, McpTaskInput, McpTaskRequest } from '../mcp-media/dialect.js';
import {
  embeddedObjects,
  MEDIA_URL,
  record,
  resultText,
  str,
  structured,
  UUID,
  type TaskReading,
  type TaskState,
} from '../mcp-media/protocol.js';
import { callTool, putUpload, uploadFailed, type ToolCall } from '../mcp-media/tools.js';
import { ZETA_DEFAULT_MODELS, ZETA_MODELS } from './catalog.js';

// zeta's dialect of the MCP task tools (contract: zeta-eta-source-usage
// §2.1, §2.3): `generate_image` / `generate_video` answer a task id, `get_task`
// its status word (SUCCEEDED with the result URL), uploads go init_upload →
// PUT → complete_upload (an asset URL). Every call carries a rationale.

/** The compiled endpoint (its default base URL). */
export const ZETA_ENDPOINT = 'https://mcp.runwayml.com/mcp';
export const ZETA_TOKEN_ENV = 'ZETA_MCP_TOKEN';

const ZETA_STATUS = /\b(SUCCEEDED|FAILED|CANCELED|CANCELLED|RUNNING|PENDING|THROTTLED|QUEUED)\b/;

function submitCall(request: McpTaskRequest, refs: readonly string[]): { tool: string; args: Record<string, unknown> } {
  const byRole = (role: McpTaskInput['role']) =>
    request.inputs.flatMap((input, index) => (input.role === role ? [{ input, ref: refs[index] }] : []));
  const references = byRole('image_references').map(({ input, ref }) => ({ url: ref, ...(input.tag ? { tag: input.tag } : {}) }));
  const start = byRole('start_image')[0];
  const end = byRole('end_image')[0];
  const video = byRole('video_references')[0];
  return {
    tool: `generate_${request.media}`,
    args: {
      promptText: request.prompt,
      model: request.model,
      ...(request.ratio ? { ratio: request.ratio } : {}),
      ...(references.length ? { referenceImages: references } : {}),
      ...(request.media === 'image' ? { count: 1 } : {}),
      ...request.parameters,
      ...(start ? { startFrame: { url: start.ref } } : {}),
      ...(end ? { endFrame: { url: end.ref } } : {}),
      ...(video ? { referenceVideo: { url: video.ref } } : {}),
    },
  };
}

async function upload(call: ToolCall, file: { filename: string; bytes: Buffer; mime: string }): Promise<string> {
  const started = await callTool(
    call,
    'init_upload',
    { filename: file.filename, fileSize: file.bytes.length, mimeType: file.mime },
    'MCP_UPLOAD_FAILED',
  );
  const data = record(started.structuredContent) ?? {};
  const uploadId = str(data.uploadId) ?? /uploadId\W+([0-9a-f-]{36})/i.exec(resultText(started))?.[1];
  const listed = [data.uploadUrls, data.urls, data.parts].find(Array.isArray) as unknown[] | undefined;
  const link =
    str(listed?.[0]) ?? str(record(listed?.[0])?.url) ?? str(data.uploadUrl) ?? /https?:\/\/\S+X-Amz-\S+/.exec(resultText(started))?.[0];
  if (!uploadId || !link) throw uploadFailed(call, 'init_upload gave no upload id or link.');
  const etag = await putUpload(call, link, file.bytes, file.mime);
  if (!etag) throw uploadFailed(call, 'the upload PUT answered no ETag.');
  const done = await callTool(call, 'complete_upload', { uploadId, parts: [{ partNumber: 1, etag }] }, 'MCP_UPLOAD_FAILED');
  const url = str(record(done.structuredContent)?.url) ?? /https?:\/\/\S+\/datasets?\/\S+/.exec(resultText(done))?.[0];
  if (!url) throw uploadFailed(call, 'complete_upload gave no asset URL.');
  return url;
}

function taskIdOf(result: CallToolResult): string | undefined {
  const data = structured(result);
  const first = Array.isArray(data.tasks) ? record(data.tasks[0]) : undefined;
  return str(data.taskId) ?? str(data.id) ?? str(first?.id) ?? UUID.exec(resultText(result))?.[0];
}

function stateOf(word: string): TaskState {
  if (word === 'SUCCEEDED') return 'succeeded';
  if (word === 'FAILED') return 'failed';
  if (word === 'CANCELED' || word === 'CANCELLED') return 'canceled';
  if (word === 'RUNNING') return 'running';
  return 'pending';
}

/** The output: `structuredContent.url`, the task's artifacts (videos first), then media links in the text. */
function urlOf(result: CallToolResult, media: McpMediaKind): string | undefined {
  const direct = str(structured(result).url);
  if (direct) return direct;
  const text = resultText(result);
  const artifacts = embeddedObjects(text).flatMap((object) => {
    const list = record(object.task)?.artifacts ?? object.artifacts;
    return Array.isArray(list) ? list.map((item) => str(record(item)?.url)).filter((url): url is string => url !== undefined) : [];
  });
  const links = [...artifacts, ...(text.match(MEDIA_URL) ?? [])];
  const video = links.find((url) => /\.(mp4|mov|webm)(\?|$)/i.test(url));
  return media === 'video' ? (video ?? links[0]) : links[0];
}

function readTask(media: McpMediaKind, result: CallToolResult): TaskReading {
  const text = resultText(result);
  const word = str(structured(result).status)?.toUpperCase() ?? ZETA_STATUS.exec(text)?.[1] ?? 'PENDING';
  const state = stateOf(word);
  const detail = embeddedObjects(text)
    .map((object) => str(record(object.task)?.failure) ?? str(object.failure))
    .find(Boolean);
  return {
    state,
    status: word,
    url: state === 'succeeded' ? urlOf(result, media) : undefined,
    detail: detail ?? (state === 'failed' ? text.slice(0, 300) : undefined),
  };
}

/** §1.1 rules of single models: veo-3.1 runs 8 s at 1080p; gen-4.5 drops audio when it starts from a frame. */
function rules(
  model: string,
  parameters: Readonly<Record<string, string | number | boolean>>,
  roles: readonly string[],
): Readonly<Record<string, string | number | boolean>> {
  if (model === 'veo-3.1' && parameters.resolution === '1080p') return { ...parameters, duration: 8 };
  if (model === 'gen-4.5' && roles.includes('start_image')) {
    const { generateAudio: _dropped, ...rest } = parameters;
    return rest;
  }
  return parameters;
}

export const zetaDialect: McpLaneDialect = {
  lane: 'zeta',
  endpoint: ZETA_ENDPOINT,
  tokenEnv: ZETA_TOKEN_ENV,
  defaults: ZETA_DEFAULT_MODELS,
  catalogAccess: 'static',
  models: async () => ZETA_MODELS,
  // §2.1: every zeta call carries this sentence.
  callArgs: { rationale: 'User-initiated generation in a local studio.' },
  rules,
  submitCall,
  pollCall: (taskId) => ({ tool: 'get_task', args: { id: taskId } }),
  upload,
  taskIdOf,
  readTask,
};
