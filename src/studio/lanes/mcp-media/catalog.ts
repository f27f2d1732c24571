// An MCP lane's model (contract: zeta-eta-source-usage §1): its kind, its
// aspect ratios, the input roles it takes and its declared parameters (the
// shape GET /api/mcp/models answers, declared in api/mcp.ts). Each lane has
// its catalog in its folder: zeta's static one, eta's read live.

export { MCP_MEDIA_KINDS, type McpInputRole, type McpMediaKind, type McpModel, type McpParameter } from '../../api/mcp.js';
