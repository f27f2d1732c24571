import type { AcceptedLine } from '../chat-service.js';

/**
 * Where a prompt went, as response headers of its NDJSON stream: the stream
 * itself holds only the spec's four line types (thinking, text, tool, done).
 */
export const ACCEPTED_HEADERS = {
  sessionId: 'X-Chat-Session-Id',
  traceId: 'X-Chat-Trace-Id',
  messageId: 'X-Chat-Message-Id',
  agent: 'X-Chat-Agent',
  ahead: 'X-Chat-Ahead',
} as const;

export function acceptedHeaders(accepted: AcceptedLine): Record<string, string> {
  return {
    [ACCEPTED_HEADERS.sessionId]: accepted.sessionId,
    [ACCEPTED_HEADERS.traceId]: accepted.traceId,
    [ACCEPTED_HEADERS.messageId]: accepted.messageId,
    [ACCEPTED_HEADERS.agent]: accepted.agent,
    [ACCEPTED_HEADERS.ahead]: String(accepted.ahead),
  };
}
