import { MCP_DEFAULT_MODELS } from '../../mcp/catalog.js';
import { cachedEtaModels } from '../../mcp/eta-catalog.js';
import { mcpModelSpec } from '../../mcp/model-specs.js';
import { MCP_ENDPOINTS, MCP_TOKEN_ENV, mcpLaneStatus } from '../../mcp/servers.js';
import type { LaneModule } from '../types.js';

// The `eta` lane: an MCP catalog read live from its server (mcp/eta-catalog.ts),
// catalog only until configuration unlocks execution (a paid plan; a locked
// generation answers 409 MCP_EXECUTION_LOCKED). Jobs go through POST
// /api/mcp/generate; the adapter only reports readiness.

export const etaLane: LaneModule = {
  id: 'eta',
  label: 'Eta (MCP)',
  description: 'MCP catalog only until a paid plan unlocks execution (POST /api/mcp/generate).',
  credential: { kind: 'mcp-server', tokenEnv: MCP_TOKEN_ENV.eta },
  codes: { missingCredential: 'MCP_NOT_CONNECTED' },
  // Read live and cached (mcp/eta-catalog.ts): the registry lists the last catalog read, and a stale one is read again meanwhile.
  models: { list: [], default: MCP_DEFAULT_MODELS.eta.image, discover: (ctx) => cachedEtaModels(ctx).map(mcpModelSpec) },
  controls: [],
  maxInputImages: 3,
  timeoutMs: 12 * 60_000,
  endpoints: { base: { env: 'SVC_ETA_BASE_URL', default: MCP_ENDPOINTS.eta } },
  adapter: { specificationVersion: 'v1', probe: async (ctx) => mcpLaneStatus(ctx, 'eta') },
};
