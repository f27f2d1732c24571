import { MCP_DEFAULT_MODELS, ZETA_MODELS } from '../../mcp/catalog.js';
import { mcpModelSpec } from '../../mcp/model-specs.js';
import { MCP_ENDPOINTS, MCP_TOKEN_ENV, mcpLaneStatus } from '../../mcp/servers.js';
import type { LaneModule } from '../types.js';

// The `zeta` lane: image and video through several model families, on a
// hosted MCP server (Streamable HTTP). Its jobs go through POST
// /api/mcp/generate (src/studio/mcp/), not /api/generate: the adapter only
// reports readiness (§1: locked > disconnected > ready). Its catalog is
// static (mcp/catalog.ts).

export const zetaLane: LaneModule = {
  id: 'zeta',
  label: 'Zeta (MCP)',
  description: 'Image and video through several model families over MCP (POST /api/mcp/generate).',
  credential: { kind: 'mcp-server', tokenEnv: MCP_TOKEN_ENV.zeta },
  codes: { missingCredential: 'MCP_NOT_CONNECTED' },
  // Its defaults per kind are mcp/catalog.ts MCP_DEFAULT_MODELS (no `defaultVideo`: the lane is no target of /api/video).
  models: {
    list: ZETA_MODELS.map(mcpModelSpec),
    default: MCP_DEFAULT_MODELS.zeta.image,
  },
  controls: [],
  maxInputImages: 3,
  // §2.3: the video deadline (an image job's is 5 min).
  timeoutMs: 12 * 60_000,
  endpoints: { base: { env: 'SVC_ZETA_BASE_URL', default: MCP_ENDPOINTS.zeta } },
  adapter: { specificationVersion: 'v1', probe: async (ctx) => mcpLaneStatus(ctx, 'zeta') },
  // Each model's kind, aspect ratios, input roles and parameters (eta's are live: GET /api/mcp/models).
  capabilities: { values: { zetaModels: ZETA_MODELS } },
};
