import { ServiceError } from '../../../common/errors.js';
import { readSse } from '../../../common/events/client.js';
import { IMAGE_FORMATS, type ImageFormat } from '../../catalog/controls.js';
import type { LaneJob, LaneUsage } from '../types.js';
import { networkError, parseUpstreamError, toLaneError, type ResponsesLane } from './errors.js';

// One `POST …/responses` with `stream: true`: plain fetch (no SDK, so nothing
// retries a billable call behind our back), a whole-call timeout, the job's
// abort signal, and the event stream turned into phases, partials and images.

export interface ResponsesCall {
  readonly lane: ResponsesLane;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** From buildResponsesBody: sent as is, its shared image parts never copied into one string. */
  readonly body: Blob;
  readonly timeoutMs: number;
  /** Format asked of the tool; used when an event does not say. */
  readonly format: ImageFormat;
  readonly job: LaneJob;
}

export interface ResponsesOutcome {
  readonly images: readonly { readonly b64: string; readonly format: ImageFormat }[];
  readonly revisedPrompt?: string;
  /** Assistant text, if the planner also wrote some (a refusal arrives this way). */
  readonly text?: string;
  readonly usage?: LaneUsage;
  readonly responseId?: string;
}

type StreamEvent = Record<string, unknown> & { type?: string };
type Item = Record<string, unknown> & { type?: string };

const formatOf = (value: unknown, fallback: ImageFormat): ImageFormat =>
  typeof value === 'string' && (IMAGE_FORMATS as readonly string[]).includes(value) ? (value as ImageFormat) : fallback;
const asRecord = (value: unknown): Record<string, unknown> | undefined => (value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);

function usageOf(response: Record<string, unknown> | undefined): LaneUsage | undefined {
  const usage = asRecord(response?.usage);
  if (!usage) return undefined;
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return { inputTokens: number(usage.input_tokens), outputTokens: number(usage.output_tokens), totalTokens: number(usage.total_tokens) };
}

function messageText(item: Item): string {
  const content = Array.isArray(item.content) ? item.content : [];
  return content.map((part) => (asRecord(part)?.type === 'output_text' ? String(asRecord(part)?.text ?? '') : '')).join('');
}

/** Collects the image calls and text of one response as events arrive. */
class OutcomeBuilder {
  private readonly images = new Map<string, { b64: string; format: ImageFormat }>();
  private revisedPrompt?: string;
  private text = '';
  private usage?: LaneUsage;
  private responseId?: string;

  constructor(private readonly format: ImageFormat) {}

  item(item: Item, key: string): void {
    if (item.type === 'image_generation_call') {
      // A non-empty result is success even when status still says "generating" (contract §4).
      if (typeof item.result === 'string' && item.result.length > 0) {
        this.images.set(String(item.id ?? key), { b64: item.result, format: formatOf(item.output_format, this.format) });
      }
      if (typeof item.revised_prompt === 'string') this.revisedPrompt = item.revised_prompt;
    } else if (item.type === 'message') {
      this.text += messageText(item);
    }
  }

  /** The final response object repeats every output item; it fills whatever a malformed event lost. */
  response(response: Record<string, unknown> | undefined): void {
    if (!response) return;
    if (typeof response.id === 'string') this.responseId = response.id;
    this.usage = usageOf(response) ?? this.usage;
    const output = Array.isArray(response.output) ? response.output : [];
    output.forEach((entry, index) => {
      const item = asRecord(entry) as Item | undefined;
      if (item?.type === 'image_generation_call' && !this.images.has(String(item.id ?? `output-${index}`))) this.item(item, `output-${index}`);
    });
  }

  build(): ResponsesOutcome {
    return { images: [...this.images.values()], revisedPrompt: this.revisedPrompt, text: this.text || undefined, usage: this.usage, responseId: this.responseId };
  }
}

/**
 * Runs one streamed Responses call to its terminal event. Throws a ServiceError:
 * the mapped upstream error, NETWORK_FAILED, UPSTREAM_TIMEOUT, or the job
 * signal's reason when the job was cancelled.
 */
export async function callResponses(call: ResponsesCall): Promise<ResponsesOutcome> {
  try {
    return await callUpstream(call);
  } catch (error) {
    // Whatever the upstream said may echo the credential this call sent: never let it out.
    const credential = call.headers.authorization?.replace(/^Bearer\s+/i, '');
    throw error instanceof ServiceError ? error.withSecretsMasked([credential]) : error;
  }
}

async function callUpstream(call: ResponsesCall): Promise<ResponsesOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, call.timeoutMs);
  const onJobAbort = () => controller.abort();
  call.job.signal.addEventListener('abort', onJobAbort, { once: true });
  if (call.job.signal.aborted) controller.abort();

  // Why a fetch or a read failed, in our terms; cancellation and timeout win over the transport's view.
  const failure = (error: unknown, stage: 'connect' | 'stream'): ServiceError => {
    if (call.job.signal.aborted) return call.job.signal.reason instanceof ServiceError ? call.job.signal.reason : new ServiceError('JOB_CANCELLED');
    if (timedOut) return new ServiceError('UPSTREAM_TIMEOUT', `The upstream did not finish within ${Math.round(call.timeoutMs / 1000)} s.`, { details: { timeoutMs: call.timeoutMs, stage } });
    if (error instanceof ServiceError) return error;
    return networkError(error, stage);
  };

  try {
    // The planner starts as soon as the request is out; its first event can take a while.
    call.job.phase('planning');
    let response: Response;
    try {
      response = await fetch(call.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...call.headers },
        body: call.body,
        // No redirects and no window: fetch then sends the request itself instead of a clone, whose
        // teed body would keep every byte sent in memory until the call ends (a copy per call).
        redirect: 'error',
        window: null,
        signal: controller.signal,
      });
    } catch (error) {
      throw failure(error, 'connect');
    }
    if (!response.ok) {
      let text = '';
      try {
        text = await response.text();
      } catch (error) {
        throw failure(error, 'stream');
      }
      throw toLaneError(call.lane, parseUpstreamError(response.status, text, response.headers));
    }
    if (!response.body) throw networkError(new Error('empty body'), 'stream');
    try {
      return await readResponseStream(call, response.body);
    } catch (error) {
      throw failure(error, 'stream');
    }
  } finally {
    clearTimeout(timer);
    call.job.signal.removeEventListener('abort', onJobAbort);
    // Frees the connection when we stop reading early (an error event, a failure).
    controller.abort();
  }
}

async function readResponseStream(call: ResponsesCall, body: ReadableStream<Uint8Array>): Promise<ResponsesOutcome> {
  const outcome = new OutcomeBuilder(call.format);
  let rendering = false;
  const startRendering = () => {
    if (rendering) return;
    rendering = true;
    call.job.phase('rendering');
  };

  for await (const message of readSse(body)) {
    if (!message.data || message.data === '[DONE]') continue;
    let event: StreamEvent;
    try {
      event = JSON.parse(message.data) as StreamEvent;
    } catch {
      // A garbled frame is skipped; the terminal event repeats every output item.
      continue;
    }
    const type = event.type ?? message.event;
    switch (type) {
      case 'response.output_item.added': {
        if (asRecord(event.item)?.type === 'image_generation_call') startRendering();
        break;
      }
      case 'response.image_generation_call.in_progress':
      case 'response.image_generation_call.generating':
        startRendering();
        break;
      case 'response.image_generation_call.partial_image': {
        startRendering();
        if (typeof event.partial_image_b64 === 'string') {
          const index = typeof event.partial_image_index === 'number' ? event.partial_image_index : 0;
          call.job.partial({ index, b64: event.partial_image_b64, format: formatOf(event.output_format, call.format) });
        }
        break;
      }
      case 'response.output_item.done': {
        const item = asRecord(event.item) as Item | undefined;
        if (item) outcome.item(item, `output-${String(event.output_index ?? '')}`);
        break;
      }
      case 'response.completed': {
        outcome.response(asRecord(event.response));
        return outcome.build();
      }
      case 'response.incomplete': {
        const response = asRecord(event.response);
        const reason = String(asRecord(response?.incomplete_details)?.reason ?? 'unknown');
        outcome.response(response);
        const built = outcome.build();
        // An image that did arrive is kept; only an empty incomplete response is an error.
        if (built.images.length > 0) return built;
        throw toLaneError(call.lane, { code: reason === 'content_filter' ? 'content_filter' : undefined, message: `The response ended incomplete (${reason}).` });
      }
      case 'response.failed': {
        const error = asRecord(asRecord(event.response)?.error);
        throw toLaneError(call.lane, { code: typeof error?.code === 'string' ? error.code : undefined, message: typeof error?.message === 'string' ? error.message : 'The response failed.' });
      }
      case 'error': {
        const info = parseUpstreamError(undefined, JSON.stringify({ error: event }));
        throw toLaneError(call.lane, info);
      }
      default:
        break;
    }
  }
  throw networkError(new Error('the stream ended without a terminal event'), 'stream');
}
