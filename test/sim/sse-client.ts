import { createParser } from 'eventsource-parser';

// Test-side SSE reading over real HTTP: collects every complete event and
// says whether the stream ended cleanly or was cut.

export interface SseEvent {
  readonly event: string | undefined;
  /** Raw data line(s). */
  readonly raw: string;
  /** Parsed JSON data, or undefined when the data is not JSON. */
  readonly data: Record<string, unknown> | undefined;
}

export interface SseResult {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[];
  /** True when the body ended with an error (connection cut mid-stream). */
  readonly cut: boolean;
}

function parseData(raw: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Reads a whole SSE body (the caller's fetch already returned). */
export async function readSse(response: Response, options: { stopAfter?: number } = {}): Promise<SseResult> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => events.push({ event: message.event, raw: message.data, data: parseData(message.data) }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
        await reader.cancel();
        break;
      }
    }
  } catch {
    cut = true;
  }
  return { status: response.status, headers: response.headers, events, cut };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
}
