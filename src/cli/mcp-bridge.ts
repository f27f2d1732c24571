import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isInitializeRequest, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

// `svc mcp serve`: the studio's MCP server over stdio, as a bridge. The MCP
// client speaks to this process on stdin/stdout; every message goes as is to
// the running studio's /mcp (Streamable HTTP, one session) and every message
// from there comes back, so tools, tasks, progress and cancel have one
// implementation (the studio's). Nothing but protocol goes to stdout.

export interface BridgeTarget {
  /** The studio's base URL. */
  readonly url: string;
  readonly token: string | undefined;
}

/** The JSON-RPC error a request gets when the studio could not be asked. */
const unreachable = (id: RequestId, url: string, error: unknown): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32000, message: `The studio at ${url} could not be reached: ${(error as Error).message}`, data: { code: 'UNREACHABLE' } },
});

/** Runs the bridge until the MCP client closes stdin (or the studio ends the session); resolves then. */
export async function runMcpBridge(target: BridgeTarget, log: (line: string) => void): Promise<void> {
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(new URL(`${target.url}/mcp`), target.token ? { requestInit: { headers: { authorization: `Bearer ${target.token}` } } } : {});
  /** The id of the client's initialize: its answer names the protocol version the HTTP side must then announce. */
  let initializeId: RequestId | undefined;
  let closing = false;
  let done: () => void = () => {};
  const closed = new Promise<void>((resolve) => (done = resolve));

  const close = async (why: string) => {
    if (closing) return;
    closing = true;
    log(`svc mcp serve: ${why}`);
    // DELETE /mcp: the studio drops the session now rather than at its shutdown.
    await http.terminateSession().catch(() => {});
    await Promise.allSettled([http.close(), stdio.close()]);
    done();
  };

  stdio.onmessage = (message) => {
    if (isInitializeRequest(message)) initializeId = (message as { id: RequestId }).id;
    http.send(message).catch((error: unknown) => {
      log(`svc mcp serve: sending to the studio failed: ${(error as Error).message}`);
      // A request must get an answer, or the client waits forever.
      if (isJSONRPCRequest(message)) void stdio.send(unreachable(message.id, target.url, error)).catch(() => {});
    });
  };
  http.onmessage = (message) => {
    if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(message).catch((error: unknown) => log(`svc mcp serve: writing to stdout failed: ${(error as Error).message}`));
  };
  http.onerror = (error) => log(`svc mcp serve: ${error.message}`);
  stdio.onerror = (error) => log(`svc mcp serve: ${error.message}`);
  stdio.onclose = () => void close('the MCP client closed stdin.');
  // The standalone stream ending is not the end: the transport reconnects it; the session's end reaches us as errors on send.
  http.onclose = () => void close('the connection to the studio closed.');
  process.stdin.once('end', () => void close('stdin ended.'));

  await http.start();
  await stdio.start();
  log(`svc mcp serve: bridging stdio to ${target.url}/mcp`);
  return closed;
}
