export { callUpstream, type UpstreamRequest } from './client.js';
export { parseWithSchema, readBytes, readEventStream, readJson } from './read.js';
export { retryAfterSeconds } from './retry-after.js';
export type { HeaderReader, UpstreamResponse } from './transport.js';
export { classifyStatus, UpstreamError, type StatusClass, type UpstreamFailure, type VendorError } from './upstream-error.js';
export { parseVendorError } from './vendor-error.js';
