import { spec } from '../../../common/error-spec.js';

// The `flow` lane's codes (contract: flow-workflow-catalog §1, §3; the
// `FLOW_` prefix is the contract's product naming). Plain data:
// studio/errors.ts merges it into the one code table.

export const FLOW_CODES = {
  FLOW_WORKFLOW_ID_INVALID: spec(
    400,
    'bad_request',
    'A workflow id is 1–64 characters: lower-case letters, digits, "_" and "-", starting with a letter or digit.',
  ),
  FLOW_WORKFLOW_ID_TAKEN: spec(409, 'bad_request', 'A workflow with this id is registered already; send replace: true to replace it.'),
  FLOW_WORKFLOW_NOT_FOUND: spec(404, 'bad_request', 'No workflow is registered with this id.'),
  FLOW_WORKFLOW_GRAPH_INVALID: spec(400, 'bad_request', 'The workflow graph is not an API-format graph of the node-graph server.'),
  FLOW_WORKFLOW_TOO_LARGE: spec(
    413,
    'bad_request',
    'The workflow graph is larger than the studio keeps (graph: 4 MiB as JSON, 5,000 nodes, 16 levels deep, 200,000 values, strings of 1 MiB; params: 5,000, 4 MiB).',
  ),
  FLOW_WORKFLOW_BIND_INVALID: spec(400, 'bad_request', 'A binding of the workflow does not fit its graph or the request.'),
  FLOW_WORKFLOW_MEDIA_KIND_INVALID: spec(400, 'bad_request', 'mediaKind is image or video.'),
  FLOW_WORKFLOW_MEDIA_KIND_MISMATCH: spec(400, 'bad_request', 'mediaKind does not match the output node of the workflow.'),
  FLOW_URL_NOT_LOCAL: spec(
    400,
    'bad_request',
    'A node-graph server origin is http on 127.0.0.1, localhost or [::1] with an explicit port, and nothing else.',
  ),
  FLOW_OFFLINE: spec(502, 'unreachable', 'The node-graph server does not answer.'),
  FLOW_SUBMIT_REJECTED: spec(502, 'upstream', 'The node-graph server refused the workflow.'),
  FLOW_EXECUTION_FAILED: spec(502, 'upstream', 'The node-graph server could not run the workflow.'),
  FLOW_NO_IMAGE: spec(502, 'upstream', 'The workflow finished without an image.'),
  FLOW_IMAGE_INVALID: spec(502, 'upstream', 'The file the workflow produced is not an image.'),
  FLOW_DOWNLOAD_FAILED: spec(502, 'upstream', 'The image of the workflow could not be downloaded from the node-graph server.'),
  FLOW_TIMEOUT: spec(504, 'timeout', 'The workflow did not finish within its time budget.'),
} as const;
