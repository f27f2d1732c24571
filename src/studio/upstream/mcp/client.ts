import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CancelTaskResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../../errors.js';
import { maskSecrets } from '../../../common/secrets.js';

// The one MCP client of the studio (contract: zeta-eta-mcp-streamable-http):
// the official SDK's Client over its Streamable HTTP transport, one session
// per server, reused by every call and initialised again when the server
// drops it (404: the call never ran there, so sending it in a new session is
// not a replay). Three rules hold for every call:
// - only allowed endpoints are connected (mcp/endpoints.ts decides);
// - the deny-listed billing tools are never called;
// - a call lost to the transport (network, timeout) is never sent again by
//   itself: generation bills, so it reaches the server at most once.

/** Never called, whatever asks (contract §1.2). */
export const MCP_DENIED_TOOLS: ReadonlySet<string> = new Set([
  'confirm_billing_purchase',
  'cancel_trial_auto_renewal',
  'confirm_trial_cancel',
]);

export interface McpServerTarget {
  /** The lane, for messages and errors. */
  readonly lane: string;
  readonly endpoint: string;
  readonly token: string;
}

export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
}

interface Session {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

const CLIENT_INFO = { name: 'svc-studio', version: '1.0.0' };

/** How long connecting (initialize) may take. */
const CONNECT_TIMEOUT_MS = 15_000;

export class McpConnections {
  private readonly sessions = new Map<string, Promise<Session>>();

  private key(target: McpServerTarget): string {
    return `${target.endpoint}\u0000${target.token}`;
  }

  private failure(target: McpServerTarget, error: unknown, what: string): ServiceError {
    if (error instanceof ServiceError) return error;
    const said = maskSecrets(error instanceof Error ? error.message : String(error), [target.token]).slice(0, 300);
    const status = error instanceof StreamableHTTPError ? error.code : undefined;
    if (status === 401 || status === 403 || /\b401\b|unauthori[sz]ed/i.test(said)) {
      return new ServiceError('MCP_AUTH_FAILED', `The ${target.lane} MCP server refused the token (${what}): ${said}`, {
        details: { lane: target.lane, retryable: false },
      });
    }
    // The SDK's own request timeout (-32001) and a closed connection (-32000) are the transport's, not the tool's.
    if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed)
      return new ServiceError('MCP_TOOL_FAILED', `The ${target.lane} MCP server answered ${what} with an error: ${said}`, {
        details: { lane: target.lane, rpcCode: error.code, retryable: false },
      });
    return new ServiceError('MCP_TRANSPORT_OFFLINE', `The ${target.lane} MCP server could not be reached (${what}): ${said}`, {
      details: { lane: target.lane, retryable: true },
    });
  }

  private async open(target: McpServerTarget): Promise<Session> {
    const transport = new StreamableHTTPClientTransport(new URL(target.endpoint), {
      requestInit: { headers: { authorization: `Bearer ${target.token}` } },
      // A redirect could carry the token elsewhere.
      redirectPolicy: 'same-origin',
    });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (error) {
      await client.close().catch(() => {});
      throw this.failure(target, error, 'initialize');
    }
    return { client, transport };
  }

  private session(target: McpServerTarget): Promise<Session> {
    const key = this.key(target);
    let session = this.sessions.get(key);
    if (!session) {
      session = this.open(target);
      this.sessions.set(key, session);
      // A failed connect is not kept: the next call tries again.
      session.catch(() => this.sessions.delete(key));
    }
    return session;
  }

  private async drop(target: McpServerTarget, session: Promise<Session>): Promise<void> {
    const key = this.key(target);
    if (this.sessions.get(key) === session) this.sessions.delete(key);
    const opened = await session.catch(() => undefined);
    await opened?.client.close().catch(() => {});
  }

  /** The session id in use for a server (after a first call). */
  async sessionId(target: McpServerTarget): Promise<string | undefined> {
    return (await this.session(target)).transport.sessionId;
  }

  /** One tool call. A dropped session is initialised again once; nothing else is ever sent twice. */
  async call(
    target: McpServerTarget,
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult & { sessionId: string | undefined }> {
    if (MCP_DENIED_TOOLS.has(tool))
      throw new ServiceError('MCP_TOOL_FAILED', `The studio never calls the ${tool} tool (a billing action).`, {
        details: { lane: target.lane, tool, retryable: false },
      });
    for (let attempt = 0; ; attempt += 1) {
      const pending = this.session(target);
      const session = await pending;
      // The SDK leaves its abort listener on the signal it is given: each call gets its own, linked to the job's.
      const linked = new AbortController();
      const forward = () => linked.abort(options.signal?.reason);
      if (options.signal?.aborted) forward();
      options.signal?.addEventListener('abort', forward, { once: true });
      try {
        const result = (await session.client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: options.timeoutMs,
          signal: linked.signal,
        })) as CallToolResult;
        return { ...result, sessionId: session.transport.sessionId };
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        const sessionGone = error instanceof StreamableHTTPError && error.code === 404;
        if (sessionGone) {
          await this.drop(target, pending);
          if (attempt === 0) continue;
        } else if (!(error instanceof McpError) || error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed) {
          // The transport broke: the next call starts a fresh session; this one is not sent again.
          await this.drop(target, pending);
        }
        throw this.failure(target, error, tool);
      } finally {
        options.signal?.removeEventListener('abort', forward);
      }
    }
  }

  /** The protocol's `tasks/cancel` (never a billing call); answers whether the server says the task is cancelled. */
  async cancelTask(target: McpServerTarget, taskId: string, options: McpCallOptions): Promise<boolean> {
    const pending = this.session(target);
    const session = await pending;
    try {
      const task = await session.client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, {
        timeout: options.timeoutMs,
      });
      return task.status === 'cancelled';
    } catch (error) {
      if (error instanceof StreamableHTTPError && error.code === 404) await this.drop(target, pending);
      throw this.failure(target, error, 'tasks/cancel');
    }
  }

  async close(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map(async (session) => (await session.catch(() => undefined))?.client.close().catch(() => {})));
  }
}
