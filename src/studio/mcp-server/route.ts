import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ErrorCode } from '../errors.js';
import type { StudioRoutes } from '../routes/plugin.js';
import type { JobTaskStore } from './task-store.js';

// The studio as an MCP server over Streamable HTTP at /mcp (issue 31): POST
// (messages), GET (the session's stream), DELETE (end the session). The Host,
// Origin and token rules are the API's (the security hook runs before every
// route; /mcp is not a public path). A session is one MCP server bound to one
// transport; every session ends when the studio shuts down. A client that
// leaves without DELETE must not hold a session for ever: a session with no
// request in flight (no call, no open stream) for MCP_SESSION_IDLE_MS ends,
// and when all MCP_MAX_SESSIONS are taken the one idle the longest gives way
// to a new client; 503 only when every session has a request in flight.

export const MCP_PATH = '/mcp';
/** Sessions open at once. */
export const MCP_MAX_SESSIONS = 32;
/** A session with no request in flight for this long ends (SVC_MCP_SESSION_IDLE_MS overrides). */
export const MCP_SESSION_IDLE_MS = 10 * 60_000;

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Requests of the session whose connection is still open (a call, a stream). */
  inFlight: number;
  /** When its last request ended (or it began). */
  idleSince: number;
}

const idleLimitMs = (env: Readonly<Record<string, string | undefined>>): number => {
  const value = Number(env.SVC_MCP_SESSION_IDLE_MS);
  return Number.isInteger(value) && value > 0 ? value : MCP_SESSION_IDLE_MS;
};

/** A refusal in JSON-RPC's shape (what an MCP client reads), the studio's error inside `data`. */
function refuse(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  const error = new ServiceError(code, message);
  return reply
    .code(error.status)
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: `${code}: ${message}`, data: error.toBody().error }, id: null });
}

/** The SDK side of a session, loaded on the first request to /mcp (runtime.ts says why). */
let runtime: Promise<typeof import('./runtime.js')> | undefined;
const loadRuntime = () => (runtime ??= import('./runtime.js'));

const sessionIdOf = (request: FastifyRequest): string | undefined => {
  const header = request.headers['mcp-session-id'];
  return typeof header === 'string' ? header : undefined;
};

export const mcpServerRoutes: StudioRoutes = async (app, { ctx }) => {
  const sessions = new Map<string, Session>();
  /** The tasks of every session, made with the first one. */
  let store: JobTaskStore | undefined;
  const idleMs = idleLimitMs(ctx.env);

  /** Ends a session: its server closes its transport (whose onclose forgets it). */
  const end = (id: string, session: Session) => {
    sessions.delete(id);
    void session.server.close().catch(() => undefined);
  };

  /** Ends the sessions idle past the limit. */
  const expire = () => {
    const now = Date.now();
    for (const [id, session] of sessions) if (session.inFlight === 0 && now - session.idleSince >= idleMs) end(id, session);
  };
  const sweep = setInterval(expire, Math.max(10, Math.min(60_000, Math.floor(idleMs / 4))));
  sweep.unref();

  /** Room for one more session: the one idle the longest ends when all are taken; false when every one is busy. */
  const makeRoom = (): boolean => {
    expire();
    if (sessions.size < MCP_MAX_SESSIONS) return true;
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) if (entry[1].inFlight === 0 && (!oldest || entry[1].idleSince < oldest[1].idleSince)) oldest = entry;
    if (!oldest) return false;
    end(...oldest);
    return true;
  };

  /** Hands the raw request to the session's transport (it answers, streams and ends it). */
  const handle = async (session: Session, request: FastifyRequest, reply: FastifyReply) => {
    // In flight until its connection closes (a stream's answer outlives handleRequest).
    session.inFlight += 1;
    reply.raw.once('close', () => {
      session.inFlight -= 1;
      session.idleSince = Date.now();
    });
    reply.hijack();
    try {
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      // Hijacked: Fastify's error handler no longer answers for this request.
      request.log.error({ err: error }, 'mcp: the transport failed');
      if (!reply.raw.headersSent)
        reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(new ServiceError('INTERNAL_ERROR').toBody()));
      else reply.raw.destroy();
    }
  };

  async function open(request: FastifyRequest, reply: FastifyReply) {
    const { createStudioMcpServer, JobTaskStore, negotiatedProtocolVersion, StreamableHTTPServerTransport } = await loadRuntime();
    if (!makeRoom())
      return refuse(
        reply,
        'SERVICE_UNAVAILABLE',
        `The studio holds ${MCP_MAX_SESSIONS} MCP sessions, each with a request in flight; try again when one ends.`,
      );
    // The initialize request names the client's protocol version: the session answers in its content types.
    const requested = (request.body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
    const server = createStudioMcpServer(ctx, (store ??= new JobTaskStore()), negotiatedProtocolVersion(requested));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, session),
    });
    const session: Session = { transport, server, inFlight: 0, idleSince: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return handle(session, request, reply);
  }

  app.post(MCP_PATH, async (request, reply) => {
    const id = sessionIdOf(request);
    if (id === undefined) {
      if (!(await loadRuntime()).isInitializeRequest(request.body))
        return refuse(reply, 'BAD_REQUEST', 'No Mcp-Session-Id: the first message of a session is initialize.');
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
    if (!session)
      return refuse(
        reply,
        id === undefined ? 'BAD_REQUEST' : 'NOT_FOUND',
        id === undefined ? 'Mcp-Session-Id is required.' : `No MCP session ${id}.`,
      );
    return handle(session, request, reply);
  };
  app.get(MCP_PATH, follow);
  app.delete(MCP_PATH, follow);

  // Before the server stops accepting: open streams would hold app.close() until its grace ends.
  app.addHook('preClose', async () => {
    clearInterval(sweep);
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(open.map(async ({ server }) => server.close()));
    store?.close();
  });
};
