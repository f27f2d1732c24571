import type { LaneEnv } from '../lanes/env.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../errors.js';
import { callUpstream } from '../upstream/index.js';
import type { McpServerTarget } from '../upstream/mcp/client.js';
import type { McpInput, McpJobRequest } from '../api/mcp.js';
import type { McpLane } from './catalog.js';
import { mcpConnections } from './servers.js';
import { resultText, toolFailure } from './protocol.js';

// The tools each lane's jobs call, with the arguments the contract gives
// (zeta-eta-source-usage §2.1, §2.2): the submit, the poll, the upload of a
// gallery file (zeta: init_upload → PUT → complete_upload gives an asset URL;
// eta: media_upload → PUT → media_confirm gives a media id).

/** §2.1: every zeta call carries this sentence. */
const RATIONALE = 'User-initiated generation in a local studio.';

export interface ToolCall {
  readonly ctx: LaneEnv;
  readonly target: McpServerTarget;
  readonly signal: AbortSignal;
  /** The time left for this call. */
  readonly timeoutMs: () => number;
}

/** One tool call; a tool-level failure is `MCP_TOOL_FAILED` (or `failureCode`). */
export async function callTool(call: ToolCall, tool: string, args: Record<string, unknown>, failureCode: 'MCP_TOOL_FAILED' | 'MCP_UPLOAD_FAILED' = 'MCP_TOOL_FAILED'): Promise<CallToolResult & { sessionId: string | undefined }> {
  const result = await mcpConnections(call.ctx).call(call.target, tool, call.target.lane === 'zeta' ? { rationale: RATIONALE, ...args } : args, { signal: call.signal, timeoutMs: call.timeoutMs() });
  const failure = toolFailure(result);
  if (failure) throw new ServiceError(failureCode, `${call.target.lane} ${tool} failed: ${failure.slice(0, 300)}`, { details: { lane: call.target.lane, tool, retryable: false } });
  return result;
}

/** The submit tool and its arguments. `refs`: the uploaded inputs (zeta: URLs, eta: media ids), by input. */
export function submitCall(request: McpJobRequest, refs: readonly string[]): { tool: string; args: Record<string, unknown> } {
  const tool = `generate_${request.media}`;
  const byRole = (role: McpInput['role']) => request.inputs.flatMap((input, index) => (input.role === role ? [{ input, ref: refs[index] }] : []));
  if (request.lane === 'zeta') {
    const references = byRole('image_references').map(({ input, ref }) => ({ url: ref, ...(input.tag ? { tag: input.tag } : {}) }));
    const start = byRole('start_image')[0];
    const end = byRole('end_image')[0];
    const video = byRole('video_references')[0];
    return {
      tool,
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
  const roles: Partial<Record<McpInput['role'], string>> = { image_references: 'image', start_image: 'start_image', end_image: 'end_image' };
  const medias = request.inputs.map((input, index) => ({ value: refs[index], role: roles[input.role] as string }));
  return {
    tool,
    args: {
      params: {
        model: request.model,
        ...(request.prompt ? { prompt: request.prompt } : {}),
        ...(request.ratio ? { aspect_ratio: request.ratio } : {}),
        ...request.parameters,
        use_unlim: true,
        ...(medias.length ? { medias } : {}),
      },
    },
  };
}

/** The poll tool and its arguments (eta's may hold up to ~25 s before answering). */
export const pollCall = (lane: McpLane, taskId: string): { tool: string; args: Record<string, unknown> } => (lane === 'zeta' ? { tool: 'get_task', args: { id: taskId } } : { tool: 'job_status', args: { jobId: taskId, sync: true } });

const record = (value: unknown): Record<string, unknown> | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

const uploadFailed = (call: ToolCall, message: string) => new ServiceError('MCP_UPLOAD_FAILED', `${call.target.lane}: ${message}`, { details: { lane: call.target.lane, retryable: false } });

/** PUTs the whole file to a presigned link (https, or the server's own origin: the simulator); answers the ETag. */
async function put(call: ToolCall, link: string, bytes: Buffer, mime: string): Promise<string | undefined> {
  const url = new URL(link);
  if (url.protocol !== 'https:' && url.origin !== new URL(call.target.endpoint).origin) throw uploadFailed(call, `the upload link ${url.origin} is neither https nor the server's own origin.`);
  try {
    return await callUpstream(
      { lane: call.target.lane, url: url.href, method: 'PUT', headers: { 'content-type': mime }, body: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }), timeoutMs: call.timeoutMs(), signal: call.signal },
      async (response) => response.headers.get('etag') ?? undefined,
    );
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason;
    throw uploadFailed(call, `the upload PUT failed: ${(error as Error).message}`);
  }
}

/** One gallery file up to the server: its asset URL (zeta) or media id (eta). */
export async function uploadInput(call: ToolCall, file: { filename: string; bytes: Buffer; mime: string }): Promise<string> {
  if (call.target.lane === 'zeta') {
    const started = await callTool(call, 'init_upload', { filename: file.filename, fileSize: file.bytes.length, mimeType: file.mime }, 'MCP_UPLOAD_FAILED');
    const data = record(started.structuredContent) ?? {};
    const uploadId = str(data.uploadId) ?? /uploadId\W+([0-9a-f-]{36})/i.exec(resultText(started))?.[1];
    const listed = [data.uploadUrls, data.urls, data.parts].find(Array.isArray) as unknown[] | undefined;
    const link = str(listed?.[0]) ?? str(record(listed?.[0])?.url) ?? str(data.uploadUrl) ?? /https?:\/\/\S+X-Amz-\S+/.exec(resultText(started))?.[0];
    if (!uploadId || !link) throw uploadFailed(call, 'init_upload gave no upload id or link.');
    const etag = await put(call, link, file.bytes, file.mime);
    if (!etag) throw uploadFailed(call, 'the upload PUT answered no ETag.');
    const done = await callTool(call, 'complete_upload', { uploadId, parts: [{ partNumber: 1, etag }] }, 'MCP_UPLOAD_FAILED');
    const url = str(record(done.structuredContent)?.url) ?? /https?:\/\/\S+\/datasets?\/\S+/.exec(resultText(done))?.[0];
    if (!url) throw uploadFailed(call, 'complete_upload gave no asset URL.');
    return url;
  }
  const started = await callTool(call, 'media_upload', { filename: file.filename, content_type: file.mime }, 'MCP_UPLOAD_FAILED');
  const upload = record((record(started.structuredContent)?.uploads as unknown[] | undefined)?.[0]);
  const link = str(upload?.upload_url);
  const mediaId = str(upload?.media_id);
  if (!link || !mediaId) throw uploadFailed(call, 'media_upload gave no upload link or media id.');
  await put(call, link, file.bytes, file.mime);
  const type = file.mime.startsWith('video/') ? 'video' : file.mime.startsWith('audio/') ? 'audio' : 'image';
  const confirmed = await callTool(call, 'media_confirm', { type, media_id: mediaId }, 'MCP_UPLOAD_FAILED');
  return str(record((record(confirmed.structuredContent)?.results as unknown[] | undefined)?.[0])?.media_id) ?? mediaId;
}
