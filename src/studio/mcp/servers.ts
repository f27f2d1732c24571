import { ServiceError } from '../errors.js';
import type { LaneStatus } from '../lanes/types.js';
import type { LaneEnv } from '../lanes/env.js';
import { McpConnections, type McpServerTarget } from '../upstream/mcp/client.js';
import type { McpLane } from './catalog.js';

// Which MCP servers the studio connects, with what token, and each lane's
// status (contract: zeta-eta-source-usage §1, §4). The endpoints are a
// compiled allow-list: each lane's own (https), or a loopback server (the
// simulators of the demo and the tests); any other endpoint is never
// connected. The token is a bearer token from the environment. `eta` runs
// catalog-only unless configuration unlocks execution (a paid plan).

/** The compiled endpoints (the lane modules' default base URLs). */
export const MCP_ENDPOINTS: Readonly<Record<McpLane, string>> = {
  zeta: 'https://mcp.runwayml.com/mcp',
  eta: 'https://mcp.higgsfield.ai/mcp',
};

/** The environment variable of each lane's bearer token. */
export const MCP_TOKEN_ENV: Readonly<Record<McpLane, string>> = { zeta: 'ZETA_MCP_TOKEN', eta: 'ETA_MCP_TOKEN' };

/** `eta` execution is unlocked by this variable (`1` or `true`): a paid plan. */
export const ETA_EXECUTABLE_ENV = 'SVC_ETA_EXECUTABLE';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Why an endpoint is not connected, or undefined when it is allowed. */
export function endpointRefusal(lane: McpLane, endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `the ${lane} endpoint is not a URL`;
  }
  if (url.username || url.password) return `the ${lane} endpoint carries credentials`;
  if (endpoint === MCP_ENDPOINTS[lane]) return undefined;
  if (LOOPBACK.has(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')) return undefined;
  return `${url.origin} is not on the allow-list (only ${MCP_ENDPOINTS[lane]}, or a loopback simulator)`;
}

/** Whether the lane may generate (locked: catalog only) and why not. */
export function executionLock(ctx: LaneEnv, lane: McpLane): string | undefined {
  if (lane === 'zeta') return undefined;
  return /^(1|true)$/i.test(ctx.env[ETA_EXECUTABLE_ENV] ?? '') ? undefined : `The eta plan is catalog-only (free plan): generation is locked. Set ${ETA_EXECUTABLE_ENV}=1 once a paid plan unlocks it.`;
}

/** The server to call, or why there is none: `MCP_NOT_CONNECTED`. */
export function mcpTarget(ctx: LaneEnv, lane: McpLane): McpServerTarget {
  const endpoint = ctx.configuredUpstreamUrl(lane) ?? MCP_ENDPOINTS[lane];
  const refusal = endpointRefusal(lane, endpoint);
  if (refusal) throw new ServiceError('MCP_NOT_CONNECTED', `The ${lane} lane is not connected: ${refusal}.`, { details: { lane } });
  const token = ctx.env[MCP_TOKEN_ENV[lane]];
  if (!token) throw new ServiceError('MCP_NOT_CONNECTED', `The ${lane} lane is not connected: set ${MCP_TOKEN_ENV[lane]} (a bearer token of its MCP server).`, { details: { lane, env: MCP_TOKEN_ENV[lane] } });
  ctx.secrets.add(token);
  return { lane, endpoint, token };
}

/** §1: locked (not executable) > disconnected (no endpoint or token) > ready. */
export function mcpLaneStatus(ctx: LaneEnv, lane: McpLane): LaneStatus {
  const lock = executionLock(ctx, lane);
  if (lock) return { state: 'locked', reason: lock };
  try {
    mcpTarget(ctx, lane);
  } catch (error) {
    return { state: 'disconnected', reason: (error as Error).message };
  }
  return { state: 'ready', reason: 'MCP server configured with a token.' };
}

const connections = new WeakMap<LaneEnv, McpConnections>();

/** The studio's MCP sessions (one per server), made on first use. */
export function mcpConnections(ctx: LaneEnv): McpConnections {
  let found = connections.get(ctx);
  if (!found) {
    found = new McpConnections();
    connections.set(ctx, found);
  }
  return found;
}
