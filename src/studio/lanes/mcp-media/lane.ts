import type { LaneModule } from '../types.js';
import type { McpLaneDialect } from './dialect.js';
import { mcpImageAdapter } from './image.js';
import { registerMcpLane } from './lanes.js';
import { mcpRoutes } from './routes.js';

// What every MCP lane module shares, made from its dialect: its credential
// (a bearer token), its code when it has none, its base endpoint, its image
// capability, and the MCP routes (POST /api/mcp/generate, GET
// /api/mcp/models). Making it registers the dialect with those routes.

export function mcpLaneParts(
  dialect: McpLaneDialect,
  baseEnv: string,
): Pick<LaneModule, 'credential' | 'codes' | 'endpoints' | 'adapter' | 'routes' | 'controls' | 'maxInputImages'> {
  registerMcpLane(dialect);
  return {
    credential: { kind: 'mcp-server', tokenEnv: dialect.tokenEnv },
    codes: { missingCredential: 'MCP_NOT_CONNECTED' },
    endpoints: { base: { env: baseEnv, default: dialect.endpoint } },
    controls: [],
    // §3: at most three reference images.
    maxInputImages: 3,
    adapter: mcpImageAdapter(dialect),
    routes: mcpRoutes,
  };
}
