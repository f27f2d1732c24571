import type { LaneModule } from '../types.js';

// The `flow` lane: runs a registered workflow of the local node-graph server;
// each workflow is a model, discovered at run time. Not built yet: listed,
// answering LANE_NOT_AVAILABLE.
export const flowLane: LaneModule = {
  id: 'flow',
  label: 'Flow',
  description: 'Runs a registered workflow of the local node-graph server; each workflow is a model.',
  credential: { kind: 'none' },
  codes: { missingCredential: 'NETWORK_FAILED' },
  models: { list: [] },
  controls: ['size'],
  maxInputImages: 1,
  timeoutMs: 600_000,
  endpoints: { base: { env: 'SVC_FLOW_BASE_URL', default: 'http://127.0.0.1:8188' } },
};
