import { mcpLaneParts } from '../mcp-media/lane.js';
import { MCP_DEADLINE_MS } from '../mcp-media/task.js';
import { mcpModelSpec } from '../mcp-media/model-specs.js';
import { mcpVideoModel } from '../mcp-media/video.js';
import type { LaneModule } from '../types.js';
import { ZETA_DEFAULT_MODELS, ZETA_MODELS } from './catalog.js';
import { zetaDialect } from './dialect.js';

// The `zeta` lane: image and video through several model families, on a
// hosted MCP server (Streamable HTTP). Its image models run as ordinary image
// jobs (POST /api/generate, /v1/images/*, the MCP server's tools), each
// model's declared parameters and `ratio` as its options; POST
// /api/mcp/generate (the MCP routes, mcp-media/routes.ts) takes image and
// video. Its catalog is static (catalog.ts).

export const zetaLane: LaneModule = {
  id: 'zeta',
  label: 'Zeta (MCP)',
  description: 'Image and video through several model families over MCP (POST /api/generate for images, POST /api/mcp/generate).',
  ...mcpLaneParts(zetaDialect, 'SVC_ZETA_BASE_URL'),
  models: {
    list: ZETA_MODELS.map(mcpModelSpec),
    default: ZETA_DEFAULT_MODELS.image,
    defaultVideo: ZETA_DEFAULT_MODELS.video,
  },
  // §2.3: an image task's deadline (a video's is 12 min).
  timeoutMs: MCP_DEADLINE_MS.image,
  // Each model's kind, aspect ratios, input roles and parameters (eta's are live: GET /api/mcp/models).
  capabilities: { values: { zetaModels: ZETA_MODELS } },
  // Its video models (POST /api/video/generate, POST /api/mcp/generate), each one's limits read from its declarations.
  video: mcpVideoModel(zetaDialect, () => ZETA_MODELS),
};
