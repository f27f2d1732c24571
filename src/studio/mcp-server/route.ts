import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ErrorCode } from '../../common/errors.js';
import type { StudioRoutes } from '../routes/plugin.js';
import { createStudioMcpServer, negotiatedProtocolVersion } from './server.js';
import { JobTaskStore } from './task-store.js';

// The studio as an MCP server over Streamable HTTP at /mcp (issue 31): POST
// (messages), GET (the session's stream), DELETE (end the session). The Host,
// Origin and token rules are the API's (the security hook runs before every
// route; /mcp is not a public path). A session is one MCP server bound to one
// transport; every session ends when the studio shuts down.

export const MCP_PATH = '/mcp';
/** Sessions open at once; an initialize past it is refused (a client that never says DELETE holds one until shutdown). */
export const MCP_MAX_SESSIONS = 32;

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
}

/** A refusal in JSON-RPC's shape (what an MCP client reads), the studio's error inside `data`. */
function refuse(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  const error = new ServiceError(code, message);
  return reply
    .code(error.status)
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: `${code}: ${message}`, data: error.toBody().error }, id: null });
}

const sessionIdOf = (request: FastifyRequest): string | undefined => {
  const header = request.headers['mcp-session-id'];
  return typeof header === 'string' ? header : undefined;
};

export const mcpServerRoutes: StudioRoutes = async (app, { ctx }) => {
  const sessions = new Map<string, Session>();
  const store = new JobTaskStore();

  /** Hands the raw request to the session's transport (it answers, streams and ends it). */
  const handle = async (session: Session, request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    try {
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      // Hijacked: Fastify's error handler no longer answers for this request.
      request.log.error({ err: error }, 'mcp: the transport failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(new ServiceError('INTERNAL_ERROR').toBody()));
      else reply.raw.destroy();
    }
  };

  async function open(request: FastifyRequest, reply: FastifyReply) {
    if (sessions.size >= MCP_MAX_SESSIONS) return refuse(reply, 'SERVICE_UNAVAILABLE', `The studio holds ${MCP_MAX_SESSIONS} MCP sessions; end one (DELETE ${MCP_PATH}) first.`);
    // The initialize request names the client's protocol version: the session answers in its content types.
    const requested = (request.body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
    const server = createStudioMcpServer(ctx, store, negotiatedProtocolVersion(requested));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, session),
    });
    const session: Session = { transport, server };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return handle(session, request, reply);
  }

  app.post(MCP_PATH, async (request, reply) => {
    const id = sessionIdOf(request);
    if (id === undefined) {
      if (!isInitializeRequest(request.body)) return refuse(reply, 'BAD_REQUEST', 'No Mcp-Session-Id: the first message of a session is initialize.');
      return open(request, reply);
    }
    const session = sessions.get(id);
    if (!session) return refuse(reply, 'NOT_FOUND', `No MCP session ${id} (it ended, or the studio restarted): initialize a new one.`);
    return handle(session, request, reply);
  });

  // GET: the session's stream of server messages; DELETE: the session ends.
  const follow = async (request: FastifyRequest, reply: FastifyReply) => {
    const id = sessionIdOf(request);
    const session = id === undefined ? undefined : sessions.get(id);
    if (!session) return refuse(reply, id === undefined ? 'BAD_REQUEST' : 'NOT_FOUND', id === undefined ? 'Mcp-Session-Id is required.' : `No MCP session ${id}.`);
    return handle(session, request, reply);
  };
  app.get(MCP_PATH, follow);
  app.delete(MCP_PATH, follow);

  // Before the server stops accepting: open streams would hold app.close() until its grace ends.
  app.addHook('preClose', async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(open.map(async ({ server }) => server.close()));
    store.close();
  });
};
