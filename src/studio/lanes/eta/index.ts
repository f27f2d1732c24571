import { mcpLaneParts } from '../mcp-media/lane.js';
import { mcpModelSpec } from '../mcp-media/model-specs.js';
import { MCP_DEADLINE_MS } from '../mcp-media/task.js';
import { mcpVideoModel } from '../mcp-media/video.js';
import type { LaneModule } from '../types.js';
import { cachedEtaModels, latestEtaModels } from './catalog.js';
import { etaDialect } from './dialect.js';

// The `eta` lane: an MCP catalog read live from its server (catalog.ts),
// catalog only until configuration unlocks execution (SVC_ETA_EXECUTABLE: a
// paid plan; a locked generation answers 409 MCP_EXECUTION_LOCKED, on every
// surface). Once unlocked, its image models run as ordinary image jobs and
// through POST /api/mcp/generate, like zeta's.

export const etaLane: LaneModule = {
  id: 'eta',
  label: 'Eta (MCP)',
  description: 'MCP catalog only until a paid plan unlocks execution (then POST /api/generate for images, POST /api/mcp/generate).',
  ...mcpLaneParts(etaDialect, 'SVC_ETA_BASE_URL'),
  // Read live and cached: the registry lists the last catalog read, and a stale one is read again meanwhile.
  models: {
    list: [],
    default: etaDialect.defaults.image,
    defaultVideo: etaDialect.defaults.video,
    discover: (ctx) => cachedEtaModels(ctx, etaDialect).map(mcpModelSpec),
  },
  timeoutMs: MCP_DEADLINE_MS.image,
  // Its video models, from the last catalog read (GET /api/mcp/models, the registry's listing read it).
  video: mcpVideoModel(etaDialect, latestEtaModels),
};
