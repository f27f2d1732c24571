// The studio's API contract: values, request and result schemas, event
// payloads. The server validates with it; the CLI and the web UI import it.
export * from './values.js';
export * from './requests.js';
export * from './results.js';
export * from './events.js';
export * from './sessions.js';
export * from './nodes.js';
export * from './keys.js';
export * from './quota.js';
export * from './auth.js';
export * from './jobs.js';
export * from './job-summary.js';
export * from './video.js';
export * from './prompt-builder.js';
export * from './agent.js';
export * from './mcp.js';
export * from './flow.js';
export * from './demo.js';
