// What an MCP session needs, in one module that route.ts loads on the first
// request to /mcp: the MCP SDK (and ajv, which it pulls in) is a large part of
// the bundle, and a studio that nobody reaches over MCP should not compile it at
// start (test/startup checks that `svc serve` does not load it).
export { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
export { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
export { createStudioMcpServer, negotiatedProtocolVersion } from './server.js';
export { JobTaskStore } from './task-store.js';
