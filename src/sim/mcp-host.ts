import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

// The HTTP side of an MCP simulator (contract: zeta-eta-mcp-streamable-http
// §1): one endpoint `/mcp` served by the official SDK's Streamable HTTP server
// transport, one session (and one SDK server) per `initialize`, bearer auth
// (401 with `WWW-Authenticate`), unknown sessions 404, no server-initiated GET
// stream (405, which the spec allows). Beside it, what a media vendor also
// serves: its output files (`GET /files/:id`) and presigned upload targets
// (`PUT /uploads/:id`, answering an ETag). `/__sim/calls` is the test's log of
// tool calls (another process reads it over HTTP); `POST /__sim/drop-sessions`
// forgets every session, as a server restart would.

/** One tool call as the simulator saw it. */
export interface ToolCallEntry {
  readonly at: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly sessionId: string | undefined;
}

export interface McpHostOptions {
  readonly name: string;
  readonly tokens: readonly string[];
  /** Also accepts the tokens this rule allows (the demo's). */
  readonly acceptToken?: (token: string) => boolean;
  /** A fresh SDK server for a new session; `log` records a tool call. */
  readonly buildServer: (host: McpHost) => McpServer;
  /** A tool call this answers true for is received (logged) and its connection then cut without an answer: a network failure after the server took it. */
  readonly dropCall?: (tool: string, args: Record<string, unknown>) => boolean;
  readonly port?: number;
}

/** What each MCP simulator (zeta, eta) answers to its starter. */
export interface McpSimulator {
  readonly url: string;
  readonly endpoint: string;
  readonly token: string;
  readonly host: McpHost;
  close(): Promise<void>;
}

/** A tool answer's text content part. */
export const textPart = (value: string) => ({ type: 'text' as const, text: value });

export interface McpHost {
  readonly url: string;
  /** The MCP endpoint: `${url}/mcp`. */
  readonly endpoint: string;
  /** Serves `bytes` at a public link; answers it. */
  publish(bytes: Buffer, mime: string, extension: string): string;
  /** A presigned upload target; answers its URL and id. */
  uploadTarget(): { id: string; url: string };
  /** What a client PUT to an upload target (undefined until it did). */
  uploaded(id: string): { bytes: Buffer; mime: string; etag: string } | undefined;
  log(tool: string, args: Record<string, unknown>, sessionId: string | undefined): void;
  readonly calls: readonly ToolCallEntry[];
  /** Forgets every session (clients must initialise again). */
  dropSessions(): Promise<void>;
  close(): Promise<void>;
}

const MAX_BODY = 128 * 1024 * 1024;

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

export async function startMcpHost(options: McpHostOptions): Promise<McpHost> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  const files = new Map<string, { bytes: Buffer; mime: string }>();
  const uploads = new Map<string, { bytes: Buffer; mime: string; etag: string } | null>();
  const calls: ToolCallEntry[] = [];
  const tokens = new Set(options.tokens);
  const accepts = (token: string) => tokens.has(token) || options.acceptToken?.(token) === true;
  let base = '';

  const host: McpHost = {
    get url() {
      return base;
    },
    get endpoint() {
      return `${base}/mcp`;
    },
    publish(bytes, mime, extension) {
      const id = `${randomUUID()}.${extension}`;
      files.set(id, { bytes, mime });
      return `${base}/files/${id}`;
    },
    uploadTarget() {
      const id = randomUUID();
      uploads.set(id, null);
      // The query imitates a presigned link (the lane recognises `X-Amz-` links in text).
      return { id, url: `${base}/uploads/${id}?X-Amz-Signature=sim` };
    },
    uploaded: (id) => uploads.get(id) ?? undefined,
    log(tool, args, sessionId) {
      calls.push({ at: new Date().toISOString(), tool, arguments: args, sessionId });
      if (calls.length > 2000) calls.shift();
    },
    calls,
    async dropSessions() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((entry) => entry.server.close().catch(() => {})));
    },
    close: async () => {
      await host.dropSessions();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function handleMcp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const auth = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!auth || !accepts(auth)) {
      json(response, 401, rpcError(-32001, 'Unauthorized'), {
        'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`,
      });
      return;
    }
    if (request.method === 'GET') {
      json(response, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'POST, DELETE' });
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    const id = typeof sessionId === 'string' ? sessionId : undefined;
    if (request.method === 'DELETE') {
      const entry = id ? sessions.get(id) : undefined;
      if (!entry) return json(response, 404, rpcError(-32001, 'Session not found'));
      await entry.transport.handleRequest(request, response);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(request)).toString('utf8'));
    } catch {
      json(response, 400, rpcError(-32700, 'Parse error'));
      return;
    }
    if (id) {
      const entry = sessions.get(id);
      if (!entry) return json(response, 404, rpcError(-32001, 'Session not found'));
      const call = body as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
      if (call.method === 'tools/call' && options.dropCall?.(call.params?.name ?? '', call.params?.arguments ?? {})) {
        host.log(call.params?.name ?? '', call.params?.arguments ?? {}, id);
        request.socket.destroy();
        return;
      }
      await entry.transport.handleRequest(request, response, body);
      return;
    }
    if (!isInitializeRequest(body)) return json(response, 400, rpcError(-32000, 'Bad Request: No valid session ID provided'));
    const mcp = options.buildServer(host);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => void sessions.set(newId, { transport, server: mcp }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://sim');
    if (url.pathname === '/mcp') return handleMcp(request, response);
    const file = /^\/files\/([\w.-]+)$/.exec(url.pathname);
    if (file && request.method === 'GET') {
      const found = files.get(file[1]);
      if (!found) return json(response, 404, { error: 'not found' });
      response.writeHead(200, { 'content-type': found.mime, 'content-length': String(found.bytes.length) }).end(found.bytes);
      return;
    }
    const upload = /^\/uploads\/([\w-]+)$/.exec(url.pathname);
    if (upload && request.method === 'PUT') {
      if (!uploads.has(upload[1])) return json(response, 404, { error: 'unknown upload' });
      const bytes = await readBody(request);
      const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
      uploads.set(upload[1], { bytes, mime: request.headers['content-type'] ?? 'application/octet-stream', etag });
      response.writeHead(200, { etag }).end();
      return;
    }
    if (url.pathname === '/__sim/calls' && request.method === 'GET') {
      const tool = url.searchParams.get('tool');
      return json(response, 200, { calls: tool ? calls.filter((call) => call.tool === tool) : calls });
    }
    if (url.pathname === '/__sim/drop-sessions' && request.method === 'POST') {
      await host.dropSessions();
      return json(response, 200, { dropped: true });
    }
    if (url.pathname === '/__sim/health') return json(response, 200, { name: options.name, ok: true });
    json(response, 404, { error: 'not found' });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, rpcError(-32603, (error as Error).message));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return host;
}
