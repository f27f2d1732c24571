import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

// Reading MCP tool results defensively (contract: zeta-eta-source-usage §2.3:
// the source parses structured output first, then the text): the helpers each
// lane's dialect reads its submit and poll answers with, and the normalised
// reading of a poll.

export type TaskState = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled';

export const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
export const MEDIA_URL = /https:\/\/[^\s"'<>)]+\.(?:png|jpe?g|webp|mp4|mov|webm)(?:\?[^\s"'<>)]*)?/gi;

export const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** The text blocks of a result, joined. */
export function resultText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

export const structured = (result: CallToolResult): Record<string, unknown> => record(result.structuredContent) ?? {};

/** A tool-level failure: `isError`, or eta's `structuredContent.error`. */
export function toolFailure(result: CallToolResult): string | undefined {
  const said = str(structured(result).error);
  if (said) return said;
  return result.isError ? resultText(result).slice(0, 500) || 'the tool reported an error' : undefined;
}

/** JSON objects embedded in the text (zeta puts the task there). */
export function embeddedObjects(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const start = line.indexOf('{');
    if (start < 0) continue;
    try {
      const parsed = record(JSON.parse(line.slice(start)));
      if (parsed) found.push(parsed);
    } catch {
      // Not JSON: the regexes below still read it.
    }
  }
  return found;
}

/** One poll, read: the normalised state, the vendor's word, the output URL, the failure detail. */
export interface TaskReading {
  readonly state: TaskState;
  readonly status: string;
  readonly url: string | undefined;
  readonly detail: string | undefined;
}

/** §2.3: a poll error that is a rate limit (the interval doubles). */
export const isRateLimit = (message: string): boolean => /429|rate limit|too many request/i.test(message);
