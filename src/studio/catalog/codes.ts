import { ALPHA_CODES } from '../lanes/alpha/codes.js';
import { BETA_API_CODES } from '../lanes/beta-api/codes.js';
import { CLIGEN_CODES } from '../lanes/cligen/codes.js';
import { DELTA_CODES } from '../lanes/delta/codes.js';
import { EPSILON_CODES } from '../lanes/epsilon/codes.js';
import { FLOW_CODES } from '../lanes/flow/codes.js';
import { GAMMA_CODES } from '../lanes/gamma/codes.js';
import { OAUTH_CODES } from '../lanes/oauth/codes.js';
import { VIDEO_CODES } from '../video/codes.js';
import { AGENT_CODES } from '../agent/codes.js';
import { PROMPT_BUILDER_CODES } from '../prompt-builder/codes.js';
import { MCP_CODES } from '../lanes/mcp-media/codes.js';

// Every lane's own error codes (and those of video, Agent Mode and the prompt builder), one line per table, as the
// registry lists the modules: studio/errors.ts merges them into the one table.
// A lane declares its codes in `codes.ts` (data only), not in its module:
// the module throws ServiceErrors, whose type is the merged table.

export const LANE_CODE_TABLES = [OAUTH_CODES, ALPHA_CODES, BETA_API_CODES, CLIGEN_CODES, GAMMA_CODES, DELTA_CODES, EPSILON_CODES, FLOW_CODES, VIDEO_CODES, AGENT_CODES, PROMPT_BUILDER_CODES, MCP_CODES] as const;
