import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LaneEnv } from '../env.js';
import type { McpMediaKind } from '../mcp-media/catalog.js';
import type { McpLaneDialect, McpTaskInput, McpTaskRequest } from '../mcp-media/dialect.js';
import { MEDIA_URL, record, resultText, str, structured, UUID, type TaskReading, type TaskState } from '../mcp-media/protocol.js';
import { callTool, putUpload, uploadFailed, type ToolCall } from '../mcp-media/tools.js';
import { etaModels } from './catalog.js';

// eta's dialect of the MCP task tools (contract: zeta-eta-source-usage
// §1.2, §2.2, §2.3): `generate_image` / `generate_video` take `params` (the
// inputs as `medias` with roles), `job_status {sync:true}` may hold ~25 s
// before answering, uploads go media_upload → PUT → media_confirm (a media
// id). Catalog only until configuration unlocks execution (a paid plan).

/** The compiled endpoint (its default base URL). */
export const ETA_ENDPOINT = 'https://mcp.higgsfield.ai/mcp';
export const ETA_TOKEN_ENV = 'ETA_MCP_TOKEN';
/** Execution is unlocked by this variable (`1` or `true`): a paid plan. */
export const ETA_EXECUTABLE_ENV = 'SVC_ETA_EXECUTABLE';

/** Why the plan does not allow generation, or undefined when it does. */
export const etaLock = (ctx: LaneEnv): string | undefined =>
  /^(1|true)$/i.test(ctx.env[ETA_EXECUTABLE_ENV] ?? '')
    ? undefined
    : `The eta plan is catalog-only (free plan): generation is locked. Set ${ETA_EXECUTABLE_ENV}=1 once a paid plan unlocks it.`;

const MEDIA_ROLES: Partial<Record<McpTaskInput['role'], string>> = {
  image_references: 'image',
  start_image: 'start_image',
  end_image: 'end_image',
};

function submitCall(request: McpTaskRequest, refs: readonly string[]): { tool: string; args: Record<string, unknown> } {
  const medias = request.inputs.map((input, index) => ({ value: refs[index], role: MEDIA_ROLES[input.role] as string }));
  return {
    tool: `generate_${request.media}`,
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

async function upload(call: ToolCall, file: { filename: string; bytes: Buffer; mime: string }): Promise<string> {
  const started = await callTool(call, 'media_upload', { filename: file.filename, content_type: file.mime }, 'MCP_UPLOAD_FAILED');
  const entry = record((record(started.structuredContent)?.uploads as unknown[] | undefined)?.[0]);
  const link = str(entry?.upload_url);
  const mediaId = str(entry?.media_id);
  if (!link || !mediaId) throw uploadFailed(call, 'media_upload gave no upload link or media id.');
  await putUpload(call, link, file.bytes, file.mime);
  const type = file.mime.startsWith('video/') ? 'video' : file.mime.startsWith('audio/') ? 'audio' : 'image';
  const confirmed = await callTool(call, 'media_confirm', { type, media_id: mediaId }, 'MCP_UPLOAD_FAILED');
  return str(record((record(confirmed.structuredContent)?.results as unknown[] | undefined)?.[0])?.media_id) ?? mediaId;
}

function taskIdOf(result: CallToolResult): string | undefined {
  const data = structured(result);
  const first = Array.isArray(data.results) ? record(data.results[0]) : undefined;
  return str(first?.id) ?? str(record(data.generation)?.id) ?? UUID.exec(resultText(result))?.[0];
}

function stateOf(word: string): TaskState {
  if (word === 'completed') return 'succeeded';
  if (word === 'failed' || word === 'nsfw' || word === 'ip_detected') return 'failed';
  if (word === 'canceled' || word === 'cancelled') return 'canceled';
  if (word === 'in_progress' || word === 'ip_detect') return 'running';
  return 'pending';
}

function readTask(_media: McpMediaKind, result: CallToolResult): TaskReading {
  const generation = record(structured(result).generation) ?? {};
  const word = str(generation.status) ?? 'pending';
  const state = stateOf(word);
  const url = state === 'succeeded' ? (str(record(generation.results)?.rawUrl) ?? resultText(result).match(MEDIA_URL)?.[0]) : undefined;
  return { state, status: word, url, detail: str(generation.error) ?? (state === 'failed' ? word : undefined) };
}

export const etaDialect: McpLaneDialect = {
  lane: 'eta',
  endpoint: ETA_ENDPOINT,
  tokenEnv: ETA_TOKEN_ENV,
  defaults: { image: 'soul_2', video: 'cinematic_studio_3_0' },
  catalogAccess: 'connected',
  lock: etaLock,
  models: (ctx, signal) => etaModels(ctx, etaDialect, signal),
  submitCall,
  pollCall: (taskId) => ({ tool: 'job_status', args: { jobId: taskId, sync: true } }),
  upload,
  taskIdOf,
  readTask,
};
