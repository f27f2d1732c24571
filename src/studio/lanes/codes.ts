import { ALPHA_CODES } from './alpha/codes.js';
import { BETA_API_CODES } from './beta-api/codes.js';
import { CLIGEN_CODES } from './cligen/codes.js';
import { DELTA_CODES } from './delta/codes.js';
import { EPSILON_CODES } from './epsilon/codes.js';
import { FLOW_CODES } from './flow/codes.js';
import { GAMMA_CODES } from './gamma/codes.js';
import { MCP_CODES } from './mcp-media/codes.js';
import { OAUTH_CODES } from './oauth/codes.js';

// Every lane's own error codes, one line per table. A lane declares its codes
// in its folder's `codes.ts` (data only), not in its module, so the studio's
// one table (studio/errors.ts) is built without loading any lane's code: a
// module may throw ServiceErrors typed by that table without an import loop.
// The registry (catalog/registry.ts) lists the modules; this lists their codes.

export const LANE_CODE_TABLES = [
  OAUTH_CODES,
  ALPHA_CODES,
  BETA_API_CODES,
  CLIGEN_CODES,
  GAMMA_CODES,
  DELTA_CODES,
  EPSILON_CODES,
  FLOW_CODES,
  MCP_CODES,
] as const;
