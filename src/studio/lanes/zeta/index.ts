import type { LaneModule } from '../types.js';

// The `zeta` lane: image and video through several model families, over MCP
// (Streamable HTTP). Not built yet: listed, answering LANE_NOT_AVAILABLE.
export const zetaLane: LaneModule = {
  id: 'zeta',
  label: 'Zeta (MCP)',
  description: 'Image and video through several model families over MCP.',
  credential: { kind: 'mcp-server' },
  codes: { missingCredential: 'API_KEY_REQUIRED' },
  models: { list: [] },
  controls: [],
  maxInputImages: 3,
  timeoutMs: 600_000,
  endpoints: { base: { env: 'SVC_ZETA_BASE_URL' } },
};
