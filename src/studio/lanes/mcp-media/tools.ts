import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../../errors.js';
import { callUpstream } from '../../upstream/index.js';
import type { McpServerTarget } from '../../upstream/mcp/client.js';
import type { LaneEnv } from '../env.js';
import type { McpLaneDialect } from './dialect.js';
import { toolFailure } from './protocol.js';
import { mcpConnections } from './servers.js';

// One tool call of an MCP lane (contract: zeta-eta-source-usage §2.1, §2.2),
// and the presigned PUT both lanes' upload flows end with.

export interface ToolCall {
  readonly ctx: LaneEnv;
  readonly lane: McpLaneDialect;
  readonly target: McpServerTarget;
  readonly signal: AbortSignal;
  /** The time left for this call. */
  readonly timeoutMs: () => number;
}

/** One tool call; a tool-level failure is `MCP_TOOL_FAILED` (or `failureCode`). */
export async function callTool(
  call: ToolCall,
  tool: string,
  args: Record<string, unknown>,
  failureCode: 'MCP_TOOL_FAILED' | 'MCP_UPLOAD_FAILED' = 'MCP_TOOL_FAILED',
): Promise<CallToolResult & { sessionId: string | undefined }> {
  const connections = await mcpConnections(call.ctx);
  const result = await connections.call(
    call.target,
    tool,
    { ...call.lane.callArgs, ...args },
    { signal: call.signal, timeoutMs: call.timeoutMs() },
  );
  const failure = toolFailure(result);
  if (failure)
    throw new ServiceError(failureCode, `${call.target.lane} ${tool} failed: ${failure.slice(0, 300)}`, {
      details: { lane: call.target.lane, tool, retryable: false },
    });
  return result;
}

export const uploadFailed = (call: ToolCall, message: string) =>
  new ServiceError('MCP_UPLOAD_FAILED', `${call.target.lane}: ${message}`, { details: { lane: call.target.lane, retryable: false } });

/** PUTs the whole file to a presigned link (https, or the server's own origin: the simulator); answers the ETag. */
export async function putUpload(call: ToolCall, link: string, bytes: Buffer, mime: string): Promise<string | undefined> {
  const url = new URL(link);
  if (url.protocol !== 'https:' && url.origin !== new URL(call.target.endpoint).origin)
    throw uploadFailed(call, `the upload link ${url.origin} is neither https nor the server's own origin.`);
  try {
    return await callUpstream(
      {
        lane: call.target.lane,
        url: url.href,
        method: 'PUT',
        headers: { 'content-type': mime },
        body: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }),
        timeoutMs: call.timeoutMs(),
        signal: call.signal,
      },
      async (response) => response.headers.get('etag') ?? undefined,
    );
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason;
    throw uploadFailed(call, `the upload PUT failed: ${(error as Error).message}`);
  }
}
