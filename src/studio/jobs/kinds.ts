import type { JobHandlers } from './handlers.js';
import { imageJobHandler } from './image-job.js';
import { traceJobHandler } from './trace-job.js';
import { videoJobHandler } from '../video/video-job.js';
import { agentTurnJobHandler } from '../agent/turn-job.js';
import { mcpJobHandler } from './mcp-job.js';

// The studio's job kinds and their handlers: every kind of the contract
// (api/values.ts JOB_KINDS, typed in api/jobs.ts) is run by one of these.
export const JOB_HANDLERS: JobHandlers = {
  generate: imageJobHandler,
  edit: imageJobHandler,
  multimode: imageJobHandler,
  node: imageJobHandler,
  trace: traceJobHandler,
  video: videoJobHandler,
  'agent-turn': agentTurnJobHandler,
  mcp: mcpJobHandler,
};
