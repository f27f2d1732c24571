import { spec } from '../../../common/error-spec.js';

// The MCP lanes' codes (contract: zeta-eta-source-usage §2.3, §3), shared by
// `zeta` and `eta`. Plain data: common/errors.ts merges it into the one table.

export const MCP_CODES = {
  MCP_PROVIDER_UNKNOWN: spec(400, 'bad_request', 'The provider is not an MCP lane (zeta or eta).'),
  INVALID_KIND: spec(400, 'bad_request', 'kind must be image or video.'),
  INVALID_PROMPT: spec(400, 'bad_request', 'The prompt is missing or empty.'),
  INVALID_MCP_PARAMETERS: spec(400, 'bad_request', 'parameters must be a record of scalar values.'),
  INVALID_MCP_REFERENCES: spec(400, 'bad_request', 'The references are not valid (at most three gallery files).'),
  MCP_MODEL_UNSUPPORTED: spec(400, 'bad_request', 'The MCP lane has no such model for this kind.'),
  MCP_PARAMETER_UNSUPPORTED: spec(400, 'bad_request', 'The model does not declare this parameter.'),
  MCP_PARAMETER_INVALID: spec(400, 'bad_request', 'A parameter value is outside what the model declares.'),
  MCP_INPUT_ROLE_UNSUPPORTED: spec(400, 'bad_request', 'The model does not take this kind of input.'),
  MCP_INPUT_ROLE_REQUIRED: spec(400, 'bad_request', 'The model needs an input the request does not give.'),
  MCP_END_FRAME_REQUIRES_START: spec(400, 'bad_request', 'An end frame needs a start frame.'),
  MCP_EXECUTION_LOCKED: spec(409, 'upstream', 'This MCP lane is catalog-only: its plan does not allow generation.'),
  MCP_NOT_CONNECTED: spec(409, 'auth', 'The MCP lane is not connected (no endpoint or token).'),
  MCP_AUTH_FAILED: spec(502, 'auth', 'The MCP server refused the token.'),
  MCP_TRANSPORT_OFFLINE: spec(502, 'unreachable', 'The MCP server could not be reached.'),
  MCP_TOOL_FAILED: spec(502, 'upstream', 'An MCP tool call failed.'),
  MCP_TASK_ID_MISSING: spec(502, 'upstream', 'The MCP server accepted the generation without a task id.'),
  MCP_TASK_FAILED: spec(502, 'upstream', 'The MCP task failed.'),
  MCP_TASK_CANCELED: spec(502, 'upstream', 'The MCP task was canceled upstream.'),
  MCP_RESULT_URL_MISSING: spec(502, 'upstream', 'The MCP task succeeded without a result URL.'),
  MCP_DOWNLOAD_FAILED: spec(502, 'upstream', 'The MCP result could not be downloaded safely.'),
  MCP_UPLOAD_FAILED: spec(502, 'upstream', 'An input could not be uploaded to the MCP server.'),
  MCP_JOB_TIMEOUT: spec(504, 'timeout', 'The MCP task did not finish within its deadline.'),
} as const;
