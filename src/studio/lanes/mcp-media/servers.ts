import { ServiceError } from '../../errors.js';
import type { McpConnections, McpServerTarget } from '../../upstream/mcp/client.js';
import type { LaneEnv } from '../env.js';
import type { LaneStatus } from '../types.js';
import type { McpLaneDialect } from './dialect.js';

// Which MCP server a lane connects, with what token, and the lane's status
// (contract: zeta-eta-source-usage §1, §4). The endpoints are a compiled
// allow-list: the lane's own (https), or a loopback server (the simulators of
// the demo and the tests); any other endpoint is never connected. The token
// is a bearer token from the environment.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Why an endpoint is not connected, or undefined when it is allowed. */
export function endpointRefusal(lane: McpLaneDialect, endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `the ${lane.lane} endpoint is not a URL`;
  }
  if (url.username || url.password) return `the ${lane.lane} endpoint carries credentials`;
  if (endpoint === lane.endpoint) return undefined;
  if (LOOPBACK.has(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')) return undefined;
  return `${url.origin} is not on the allow-list (only ${lane.endpoint}, or a loopback simulator)`;
}

/** The server to call, or why there is none: `MCP_NOT_CONNECTED`. */
export function mcpTarget(ctx: LaneEnv, lane: McpLaneDialect): McpServerTarget {
  const endpoint = ctx.configuredUpstreamUrl(lane.lane) ?? lane.endpoint;
  const refusal = endpointRefusal(lane, endpoint);
  if (refusal)
    throw new ServiceError('MCP_NOT_CONNECTED', `The ${lane.lane} lane is not connected: ${refusal}.`, { details: { lane: lane.lane } });
  const token = ctx.env[lane.tokenEnv];
  if (!token)
    throw new ServiceError(
      'MCP_NOT_CONNECTED',
      `The ${lane.lane} lane is not connected: set ${lane.tokenEnv} (a bearer token of its MCP server).`,
      { details: { lane: lane.lane, env: lane.tokenEnv } },
    );
  ctx.secrets.add(token);
  return { lane: lane.lane, endpoint, token };
}

/** Whether it can reach a server at all (an endpoint and a token). */
export function mcpConnected(ctx: LaneEnv, lane: McpLaneDialect): boolean {
  try {
    mcpTarget(ctx, lane);
    return true;
  } catch {
    return false;
  }
}

/** §1: locked (not executable) > disconnected (no endpoint or token) > ready. */
export function mcpLaneStatus(ctx: LaneEnv, lane: McpLaneDialect): LaneStatus {
  const lock = lane.lock?.(ctx);
  if (lock) return { state: 'locked', reason: lock };
  try {
    mcpTarget(ctx, lane);
  } catch (error) {
    return { state: 'disconnected', reason: (error as Error).message };
  }
  return { state: 'ready', reason: 'MCP server configured with a token.' };
}

/** Refuses a generation before any tool call: the lock (MCP_EXECUTION_LOCKED), then the connection. */
export function checkExecutable(ctx: LaneEnv, lane: McpLaneDialect): void {
  const lock = lane.lock?.(ctx);
  if (lock) throw new ServiceError('MCP_EXECUTION_LOCKED', lock, { details: { lane: lane.lane, reason: lock } });
  mcpTarget(ctx, lane);
}

const connections = new WeakMap<LaneEnv, Promise<McpConnections>>();

/** The studio's MCP sessions (one per server), made on first use: the MCP SDK loads then, not at start. */
export function mcpConnections(ctx: LaneEnv): Promise<McpConnections> {
  let found = connections.get(ctx);
  if (!found) {
    found = import('../../upstream/mcp/client.js').then(({ McpConnections }) => new McpConnections());
    connections.set(ctx, found);
  }
  return found;
}
