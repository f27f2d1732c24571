import type { LaneModule } from '../types.js';
import { flowCatalog } from './catalog.js';
import { flowSteps } from './run.js';
import { flowRoutes } from './routes.js';

// The `flow` lane: runs a registered workflow of a local node-graph server
// (contracts: flow-node-graph-queue, flow-workflow-catalog). Each workflow is
// a model found at run time (`flow/<id>`, its params the model's options);
// the lane is ready when a server of a registered workflow answers. A job is
// steps of the engine: submitted once, followed on one shared WebSocket per
// server, read back from `/history`; its prompt id is kept on the job, so a
// restarted studio picks the prompt up again and still delivers its image.

export const flowLane: LaneModule = {
  id: 'flow',
  label: 'Flow',
  description: 'Runs a registered workflow of the local node-graph server; each workflow is a model.',
  credential: { kind: 'none' },
  codes: {
    missingCredential: 'FLOW_OFFLINE',
    invalidModel: 'FLOW_WORKFLOW_NOT_FOUND',
    answers: [
      'FLOW_WORKFLOW_BIND_INVALID',
      'FLOW_OFFLINE',
      'FLOW_SUBMIT_REJECTED',
      'FLOW_EXECUTION_FAILED',
      'FLOW_NO_IMAGE',
      'FLOW_IMAGE_INVALID',
      'FLOW_DOWNLOAD_FAILED',
      'FLOW_TIMEOUT',
      'UPSTREAM_PROTOCOL_ERROR',
    ],
  },
  models: { list: [], discover: (ctx) => flowCatalog(ctx).modelSpecs() },
  // Size fills the bound width and height; a negative prompt its binding (refused when the workflow has none).
  controls: ['size', 'negativePrompt'],
  // Contract §3.2: one reference (the first), uploaded into the refImage binding.
  maxInputImages: 1,
  // Contract §3.7: 30 minutes, queue wait included (SVC_FLOW_TIMEOUT_MS).
  timeoutMs: 1_800_000,
  endpoints: { base: { env: 'SVC_FLOW_BASE_URL', default: 'http://127.0.0.1:8188' } },
  // Its workflow catalog: inspect, register, list, delete, probe.
  routes: flowRoutes,
  adapter: {
    specificationVersion: 'v1',
    probe: (ctx) => flowCatalog(ctx).laneStatus(),
    steps: flowSteps,
  },
};
