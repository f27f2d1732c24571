import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  ListResourcesRequestSchema,
  McpError,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ERROR_CODES, ServiceError } from '../errors.js';
import { parseWith } from '../../common/validation.js';
import { capabilities, withDiscoveredModels } from '../catalog/capabilities.js';
import type { StudioContext } from '../context.js';
import { getHistoryAsset, HISTORY_PAGE_DEFAULTS, listHistory, listHistoryGroups } from '../history.js';
import { filenameParam } from '../media/filename.js';
import { mimeOf } from '../media/image-type.js';
import { JOB_TOOLS, registerJobTools } from './job-tools.js';
import { assetContent, dataToolResult, errorToolResult, HISTORY_URI_PREFIX, historyUri } from './results.js';
import { PASS_THROUGH, TOOL_INPUTS, toolJsonSchema, type ToolName } from './schemas.js';
import type { JobTaskStore } from './task-store.js';

// The studio as an MCP server: one definition (tools, resources) over the
// studio's own internals, served per session by /mcp (route.ts) and reached
// over stdio through `svc mcp serve` (a bridge to /mcp).

/** MCP's code for a resource that does not exist (spec: Resources, Error Handling). */
const RESOURCE_NOT_FOUND = -32002;

/** History assets a resources/list page holds. */
const RESOURCE_PAGE_SIZE = HISTORY_PAGE_DEFAULTS.items;

/** The protocol version a session speaks: the client's when the SDK supports it, else the SDK's latest (the SDK's own rule at initialize). */
export const negotiatedProtocolVersion = (requested: unknown): string =>
  typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;

/** What a tool's run knows of its session. */
interface Session {
  readonly protocolVersion: string;
}

interface ReadTool<N extends ToolName> {
  readonly name: N;
  readonly title: string;
  readonly description: string;
  run(ctx: StudioContext, input: ReturnType<(typeof TOOL_INPUTS)[N]['parse']>, session: Session): Promise<CallToolResult>;
}

const listHistoryTool: ReadTool<'list_history'> = {
  name: 'list_history',
  title: 'List history',
  description:
    "Lists the studio's saved assets, newest first, with filters (prompt words, lane, model, kind, time) and pages (nextCursor). Read an asset with get_asset or resources/read of svc://history/<filename>.",
  async run(ctx, query) {
    const page =
      query.groupBy === 'session'
        ? await listHistoryGroups(ctx, {
            limit: query.limit ?? HISTORY_PAGE_DEFAULTS.groups,
            cursor: query.cursor,
            groupItems: query.groupItems ?? HISTORY_PAGE_DEFAULTS.groupItems,
          })
        : await listHistory(ctx, {
            limit: query.limit ?? HISTORY_PAGE_DEFAULTS.items,
            cursor: query.cursor,
            filter: {
              ...(query.session !== undefined ? { sessionTitle: query.session.trim() || null } : {}),
              sessionId: query.sessionId,
              provider: query.provider,
              model: query.model,
              kind: query.kind,
              since: query.since,
              until: query.until,
              q: query.q,
            },
          });
    return dataToolResult(page as unknown as Record<string, unknown>);
  },
};

const getAssetTool: ReadTool<'get_asset'> = {
  name: 'get_asset',
  title: 'Get an asset',
  description:
    'One history asset: its record (prompt, lane, model, size, settings) and the image itself (inline up to 1 MiB, else a resource link; a video or SVG is a link).',
  async run(ctx, { filename }, session) {
    const record = await getHistoryAsset(ctx, filenameParam({ filename }));
    return {
      content: [{ type: 'text', text: JSON.stringify(record) }, await assetContent(ctx, record, session.protocolVersion)],
      structuredContent: { asset: record },
    };
  },
};

const jobStatusTool: ReadTool<'job_status'> = {
  name: 'job_status',
  title: 'Job status',
  description:
    'A job by requestId (also after it ended): its state, phase, and its result or error. Every job of the studio is here, whoever made it.',
  async run(ctx, { requestId }) {
    const job = await ctx.jobs.get(requestId);
    if (!job)
      throw new ServiceError(
        'JOB_NOT_FOUND',
        `No job with requestId "${requestId}" (finished jobs are kept for a while, then forgotten).`,
        { details: { requestId } },
      );
    return dataToolResult({ job });
  },
};

const cancelJobTool: ReadTool<'cancel_job'> = {
  name: 'cancel_job',
  title: 'Cancel a job',
  description: 'Cancels a queued or running job by requestId (as DELETE /api/inflight/:id); it ends `cancelled`.',
  async run(ctx, { requestId }) {
    const job = await ctx.jobs.cancel(requestId, 'The job was cancelled (MCP cancel_job).');
    return dataToolResult({ requestId: job.requestId, cancelled: true, job });
  },
};

const listModelsTool: ReadTool<'list_models'> = {
  name: 'list_models',
  title: 'List models',
  description:
    "The studio's lanes and their models (ids to pass as `model`, with `provider` the lane), defaults, operations, capabilities, and each video lane's video models with their limits (durations, resolutions, aspect ratios, modes).",
  async run(ctx, { provider }) {
    const body = withDiscoveredModels(capabilities(ctx.version), ctx);
    const lanes = body.providers.flatMap((lane) =>
      lane.routingMode || (provider && lane.id !== provider)
        ? []
        : [
            {
              id: lane.id,
              label: lane.label,
              description: lane.description,
              built: lane.built,
              operations: lane.operations,
              defaultModel: lane.defaultModel,
              defaultVideoModel: lane.defaultVideoModel,
              models: lane.models,
              capabilities: lane.capabilities,
              video: lane.video,
            },
          ],
    );
    return dataToolResult({ lanes });
  },
};

const READ_TOOLS = [listHistoryTool, getAssetTool, jobStatusTool, cancelJobTool, listModelsTool] as const;

/** Every tool's name, title and description, in the order tools/list gives them. */
const TOOL_LIST = [...JOB_TOOLS, ...READ_TOOLS];

/** A history resource URI's file name, or a NOT_FOUND refusal. */
function filenameOfUri(uri: string): string {
  if (!uri.startsWith(HISTORY_URI_PREFIX))
    throw new ServiceError('NOT_FOUND', `No resource ${uri}: resources are ${HISTORY_URI_PREFIX}<filename>.`);
  return filenameParam({ filename: decodeURIComponent(uri.slice(HISTORY_URI_PREFIX.length)) });
}

/**
 * A failed resources/read, the studio's error as its data: MCP's "resource not found" when the URI
 * names no readable asset (a missing one, or a name that is no asset's: any refusal of the request,
 * a 4xx), an internal error only for the studio's own failures.
 */
function resourceError(ctx: StudioContext, error: unknown): McpError {
  const failure = (errorToolResult(ctx, error).structuredContent as { error: { code: string; message: string } }).error;
  const status = Object.hasOwn(ERROR_CODES, failure.code) ? ERROR_CODES[failure.code as keyof typeof ERROR_CODES].status : 500;
  return new McpError(
    status >= 400 && status < 500 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError,
    `${failure.code}: ${failure.message}`,
    failure,
  );
}

/** One MCP server over the studio, for one session (the SDK binds a server to one transport) of the protocol version it negotiated. */
export function createStudioMcpServer(ctx: StudioContext, store: JobTaskStore, protocolVersion: string): McpServer {
  const server = new McpServer(
    { name: 'svc-studio', version: ctx.version },
    {
      capabilities: { tools: {}, resources: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      instructions:
        'A local image and video studio. generate_image / edit_image / generate_video / trace_to_svg make jobs whose results land in history (svc://history/<filename>); long ones can run as tasks.',
    },
  );
  registerJobTools(server, ctx, store, protocolVersion);
  for (const tool of READ_TOOLS as readonly ReadTool<ToolName>[]) {
    server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: PASS_THROUGH }, async (args) => {
      try {
        return await tool.run(ctx, parseWith(TOOL_INPUTS[tool.name] as never, args, { what: 'argument' }), { protocolVersion });
      } catch (error) {
        return errorToolResult(ctx, error);
      }
    });
  }

  server.registerResource(
    'history',
    new ResourceTemplate(`${HISTORY_URI_PREFIX}{filename}`, { list: undefined }),
    { title: 'History asset', description: 'An image, SVG or video of the studio history.' },
    async (uri) => {
      try {
        const filename = filenameOfUri(uri.href);
        const record = await getHistoryAsset(ctx, filename);
        const bytes = await ctx.assets.read('generated', filename);
        if (!(bytes instanceof Buffer)) throw new ServiceError('NOT_FOUND', `The file of ${filename} is not stored.`);
        return { contents: [{ uri: historyUri(filename), mimeType: mimeOf(record.format), blob: bytes.toString('base64') }] };
      } catch (error) {
        throw resourceError(ctx, error);
      }
    },
  );

  // Replaced after the SDK's own: the tools' real schemas (the SDK holds the pass-through one it checks against).
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOL_LIST.map((tool): Tool => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolJsonSchema(tool.name) as Tool['inputSchema'],
      ...(JOB_TOOLS.some((job) => job.name === tool.name) ? { execution: { taskSupport: 'optional' } } : {}),
    })),
  }));
  // History pages (the template's list callback sees no cursor): nextCursor is history's own.
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const page = await listHistory(ctx, { limit: RESOURCE_PAGE_SIZE, cursor: request.params?.cursor });
    return {
      resources: page.items.map((asset) => ({
        uri: historyUri(asset.filename),
        name: asset.filename,
        title: asset.prompt.slice(0, 120),
        mimeType: mimeOf(asset.format),
        size: asset.bytes,
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });
  return server;
}
