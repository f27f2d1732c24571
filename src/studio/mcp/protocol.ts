import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpLane, McpMediaKind } from './catalog.js';

// What the two MCP servers' tool results say, read defensively (contract:
// zeta-eta-source-usage §2.3: the source parses structured output first, then
// the text): the task id of a submit, the status of a poll (normalised), the
// output URL of a finished task, a failure's detail.

export type TaskState = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ZETA_STATUS = /\b(SUCCEEDED|FAILED|CANCELED|CANCELLED|RUNNING|PENDING|THROTTLED|QUEUED)\b/;
const MEDIA_URL = /https:\/\/[^\s"'<>)]+\.(?:png|jpe?g|webp|mp4|mov|webm)(?:\?[^\s"'<>)]*)?/gi;

const record = (value: unknown): Record<string, unknown> | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** The text blocks of a result, joined. */
export function resultText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

const structured = (result: CallToolResult): Record<string, unknown> => record(result.structuredContent) ?? {};

/** A tool-level failure: `isError`, or eta's `structuredContent.error`. */
export function toolFailure(result: CallToolResult): string | undefined {
  const said = str(structured(result).error);
  if (said) return said;
  return result.isError ? resultText(result).slice(0, 500) || 'the tool reported an error' : undefined;
}

/** §2.3: the task id of a submit answer. */
export function taskIdOf(lane: McpLane, result: CallToolResult): string | undefined {
  const data = structured(result);
  const first = (value: unknown) => (Array.isArray(value) ? record(value[0]) : undefined);
  const fromData = lane === 'zeta' ? (str(data.taskId) ?? str(data.id) ?? str(first(data.tasks)?.id)) : (str(first(data.results)?.id) ?? str(record(data.generation)?.id));
  return fromData ?? UUID.exec(resultText(result))?.[0];
}

/** JSON objects embedded in the text (zeta puts the task there). */
function embeddedObjects(text: string): Record<string, unknown>[] {
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

function zetaState(word: string): TaskState {
  if (word === 'SUCCEEDED') return 'succeeded';
  if (word === 'FAILED') return 'failed';
  if (word === 'CANCELED' || word === 'CANCELLED') return 'canceled';
  if (word === 'RUNNING') return 'running';
  return 'pending';
}

function etaState(word: string): TaskState {
  if (word === 'completed') return 'succeeded';
  if (word === 'failed' || word === 'nsfw' || word === 'ip_detected') return 'failed';
  if (word === 'canceled' || word === 'cancelled') return 'canceled';
  if (word === 'in_progress' || word === 'ip_detect') return 'running';
  return 'pending';
}

/** zeta's output: `structuredContent.url`, the task's artifacts (videos first), then media links in the text. */
function zetaUrl(result: CallToolResult, media: McpMediaKind): string | undefined {
  const direct = str(structured(result).url);
  if (direct) return direct;
  const text = resultText(result);
  const artifacts = embeddedObjects(text).flatMap((object) => {
    const list = record(object.task)?.artifacts ?? object.artifacts;
    return Array.isArray(list) ? list.map((item) => str(record(item)?.url)).filter((url): url is string => url !== undefined) : [];
  });
  const links = [...artifacts, ...(text.match(MEDIA_URL) ?? [])];
  const video = links.find((url) => /\.(mp4|mov|webm)(\?|$)/i.test(url));
  return media === 'video' ? (video ?? links[0]) : links[0];
}

export function readTask(lane: McpLane, media: McpMediaKind, result: CallToolResult): TaskReading {
  const text = resultText(result);
  if (lane === 'zeta') {
    const word = str(structured(result).status)?.toUpperCase() ?? ZETA_STATUS.exec(text)?.[1] ?? 'PENDING';
    const state = zetaState(word);
    const detail = embeddedObjects(text).map((object) => str(record(object.task)?.failure) ?? str(object.failure)).find(Boolean);
    return { state, status: word, url: state === 'succeeded' ? zetaUrl(result, media) : undefined, detail: detail ?? (state === 'failed' ? text.slice(0, 300) : undefined) };
  }
  const generation = record(structured(result).generation) ?? {};
  const word = str(generation.status) ?? 'pending';
  const state = etaState(word);
  const url = state === 'succeeded' ? (str(record(generation.results)?.rawUrl) ?? text.match(MEDIA_URL)?.[0]) : undefined;
  return { state, status: word, url, detail: str(generation.error) ?? (state === 'failed' ? word : undefined) };
}

/** §2.3: a poll error that is a rate limit (the interval doubles). */
export const isRateLimit = (message: string): boolean => /429|rate limit|too many request/i.test(message);
