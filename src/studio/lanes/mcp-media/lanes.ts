import type { McpLaneDialect } from './dialect.js';

// The MCP lanes known to the shared MCP routes and the `mcp` job: each lane
// registers its dialect here when its module is made (mcp-media/lane.ts), so
// the shared code never names one.

const dialects = new Map<string, McpLaneDialect>();

export function registerMcpLane(dialect: McpLaneDialect): void {
  dialects.set(dialect.lane, dialect);
}

/** The MCP lane of an id, or undefined when it is none. */
export const mcpLaneOf = (id: unknown): McpLaneDialect | undefined => (typeof id === 'string' ? dialects.get(id) : undefined);
