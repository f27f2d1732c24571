import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isJSONRPCResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

// `svc mcp serve`: the studio's MCP server over stdio, as a bridge. The MCP
// client speaks to this process on stdin/stdout; every message goes as is to
// the running studio's /mcp (Streamable HTTP, one session) and every message
// from there comes back, so tools, tasks, progress and cancel have one
// implementation (the studio's). Nothing but protocol goes to stdout. When the
// studio restarts, its sessions are gone (404) or it does not answer for a
// moment: the bridge opens a new session by replaying the client's initialize
// (its answer kept from the client, which has one already) and sends the
// message again, so the MCP client never sees the restart but as a pause.

export interface BridgeTarget {
  /** The studio's base URL. */
  readonly url: string;
  readonly token: string | undefined;
}

/** How long the bridge tries to reach a restarting studio before answering a request with UNREACHABLE. */
export const BRIDGE_RECONNECT_MS = 15_000;

/** The JSON-RPC error a request gets when the studio could not be asked. */
const unreachable = (id: RequestId, url: string, error: unknown): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32000, message: `The studio at ${url} could not be reached: ${(error as Error).message}`, data: { code: 'UNREACHABLE' } },
});

/** A failure that means the session is gone (the studio restarted: 404) or the studio does not answer (yet). */
const sessionLost = (error: unknown): boolean => (error instanceof StreamableHTTPError ? error.code === 404 : error instanceof TypeError);

/** Runs the bridge until the MCP client closes stdin (or the studio ends the session); resolves then. */
export async function runMcpBridge(target: BridgeTarget, log: (line: string) => void): Promise<void> {
  const stdio = new StdioServerTransport();
  /** The client's initialize and its `initialized` notification: replayed to open a new session after a restart. */
  let initialize: JSONRPCRequest | undefined;
  let initialized: JSONRPCMessage | undefined;
  /** Ids of replayed initializes: their answers are the bridge's, not the client's. */
  const replayIds = new Set<RequestId>();
  const replayAnswers = new Map<RequestId, (message: JSONRPCMessage) => void>();
  let closing = false;
  let done: () => void = () => {};
  const closed = new Promise<void>((resolve) => (done = resolve));

  const connect = (): StreamableHTTPClientTransport => {
    const transport = new StreamableHTTPClientTransport(
      new URL(`${target.url}/mcp`),
      target.token ? { requestInit: { headers: { authorization: `Bearer ${target.token}` } } } : {},
    );
    transport.onmessage = (message) => {
      if (isJSONRPCResponse(message) && replayIds.has(message.id)) {
        replayAnswers.get(message.id)?.(message);
        return;
      }
      if (initialize !== undefined && isJSONRPCResultResponse(message) && message.id === initialize.id) setVersion(transport, message);
      void stdio.send(message).catch((error: unknown) => log(`svc mcp serve: writing to stdout failed: ${(error as Error).message}`));
    };
    transport.onerror = (error) => log(`svc mcp serve: ${error.message}`);
    // The standalone stream ending is not the end: the transport reconnects it; the session's end reaches us as errors on send.
    transport.onclose = () => {
      if (transport === http) void close('the connection to the studio closed.');
    };
    return transport;
  };
  const setVersion = (transport: StreamableHTTPClientTransport, message: JSONRPCMessage) => {
    const version = ((message as { result?: { protocolVersion?: unknown } }).result ?? {}).protocolVersion;
    if (typeof version === 'string') transport.setProtocolVersion(version);
  };
  let http = connect();

  /** A new session on the studio, opened with the client's own initialize; retried while the studio does not answer. */
  let reconnecting: Promise<void> | undefined;
  const reconnect = (): Promise<void> =>
    (reconnecting ??= (async () => {
      const deadline = Date.now() + BRIDGE_RECONNECT_MS;
      for (let attempt = 0; ; attempt += 1) {
        const previous = http;
        const next = connect();
        http = next;
        void previous.close().catch(() => {});
        const id = `svc-mcp-bridge-reinitialize-${Date.now()}-${attempt}`;
        replayIds.add(id);
        try {
          const answer = new Promise<JSONRPCMessage>((resolve) => replayAnswers.set(id, resolve));
          await next.start();
          await next.send({ ...(initialize as JSONRPCRequest), id });
          setVersion(next, await answer);
          if (initialized) await next.send(initialized);
          log(`svc mcp serve: the studio's session was gone (a restart?); opened a new one at ${target.url}/mcp`);
          return;
        } catch (error) {
          if (Date.now() >= deadline || !sessionLost(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 100 * 2 ** attempt)));
        } finally {
          replayIds.delete(id);
          replayAnswers.delete(id);
        }
      }
    })().finally(() => (reconnecting = undefined)));

  const close = async (why: string) => {
    if (closing) return;
    closing = true;
    log(`svc mcp serve: ${why}`);
    // DELETE /mcp: the studio drops the session now rather than at its shutdown.
    await http.terminateSession().catch(() => {});
    await Promise.allSettled([http.close(), stdio.close()]);
    done();
  };

  /** Sends a client message to the studio: once more on a new session when the studio lost this one. */
  const forward = async (message: JSONRPCMessage) => {
    if (reconnecting) await reconnecting.catch(() => {});
    try {
      await http.send(message);
    } catch (error) {
      if (initialize === undefined || message === initialize || !sessionLost(error)) throw error;
      await reconnect();
      await http.send(message);
    }
  };

  stdio.onmessage = (message) => {
    if (isInitializeRequest(message)) initialize = message as JSONRPCRequest;
    else if ((message as { method?: unknown }).method === 'notifications/initialized') initialized = message;
    forward(message).catch((error: unknown) => {
      log(`svc mcp serve: sending to the studio failed: ${(error as Error).message}`);
      // A request must get an answer, or the client waits forever.
      if (isJSONRPCRequest(message)) void stdio.send(unreachable(message.id, target.url, error)).catch(() => {});
    });
  };
  stdio.onerror = (error) => log(`svc mcp serve: ${error.message}`);
  stdio.onclose = () => void close('the MCP client closed stdin.');
  process.stdin.once('end', () => void close('stdin ended.'));

  await http.start();
  await stdio.start();
  log(`svc mcp serve: bridging stdio to ${target.url}/mcp`);
  return closed;
}
