import type { LaneModule } from '../types.js';

// The `eta` lane: an MCP catalog only, until a paid plan unlocks execution.
// Not built yet: listed, answering LANE_NOT_AVAILABLE.
export const etaLane: LaneModule = {
  id: 'eta',
  label: 'Eta (MCP)',
  description: 'MCP catalog only until a paid plan unlocks execution.',
  credential: { kind: 'mcp-server' },
  codes: { missingCredential: 'API_KEY_REQUIRED' },
  models: { list: [] },
  controls: [],
  maxInputImages: 3,
  timeoutMs: 600_000,
  endpoints: { base: { env: 'SVC_ETA_BASE_URL' } },
};
