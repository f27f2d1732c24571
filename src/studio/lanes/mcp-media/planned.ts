import { MCP_TASK_OPTION, type McpPlannedTask } from '../../api/mcp.js';

/** The task POST /api/mcp/generate planned, when the `mcp` job passed one in the options (api/mcp.ts McpPlannedTask). */
export const plannedTask = (options: Readonly<Record<string, unknown>>): McpPlannedTask | undefined => options[MCP_TASK_OPTION] as McpPlannedTask | undefined;
