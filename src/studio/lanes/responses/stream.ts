import { IMAGE_FORMATS, type ImageFormat, type Usage } from '../../api/index.js';
import { JsonBlobs, parseJsonWithBlobs } from '../../../common/json-blobs.js';
import { callUpstream, readEventStream, retryAfterSeconds, UpstreamError, type UpstreamResponse } from '../../upstream/index.js';
import type { LaneJob, ReadyImage } from '../types.js';
import {
  isStreamEventType,
  STREAM_EVENTS,
  type OutputItem,
  type ResponseObject,
  type StreamEvent,
  type StreamEventType,
} from './stream-events.js';

// One `POST …/responses` with `stream: true`, through the upstream client (its
// budget, cancel and masking), with the event stream turned into phases,
// partials and images. Failures are UpstreamErrors; the lane maps them.

export interface ResponsesCall {
  readonly lane: 'api' | 'oauth';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The credential in `headers`, masked in anything reported. */
  readonly credential: string;
  /** From buildResponsesBody: sent as is, its shared image parts never copied into one string. */
  readonly body: string | Blob;
  readonly timeoutMs: number;
  /** Format asked of the tool; used when an event does not say. */
  readonly format: ImageFormat;
  readonly job: LaneJob;
  /** An image final before the terminal event (its `output_item.done`): saving may start. */
  readonly onImage?: (image: Omit<ReadyImage, 'settings'>) => void;
  /** A piece of the assistant's text, as it arrives (a text call's stream). */
  readonly onText?: (delta: string) => void;
}

export interface ResponsesOutcome {
  readonly images: readonly { readonly bytes: Buffer; readonly format: ImageFormat }[];
  readonly revisedPrompt?: string;
  /** Assistant text, if the planner also wrote some (a refusal arrives this way). */
  readonly text?: string;
  readonly usage?: Usage;
  readonly responseId?: string;
}

const formatOf = (value: unknown, fallback: ImageFormat): ImageFormat =>
  typeof value === 'string' && (IMAGE_FORMATS as readonly string[]).includes(value) ? (value as ImageFormat) : fallback;

/**
 * Collects the image calls and text of one response as events arrive. An
 * image's base64 is a blob of the event's bytes (see parseEvent), decoded once
 * into the image's bytes; the terminal event's copy of an image already
 * received is never decoded.
 */
class OutcomeBuilder {
  private readonly images = new Map<string, { bytes: Buffer; format: ImageFormat }>();
  private revisedPrompt?: string;
  private text = '';
  private usage?: Usage;
  private responseId?: string;

  constructor(private readonly format: ImageFormat) {}

  /** The image an item carried, if any, with the revised prompt known so far. */
  item(item: OutputItem, key: string, blobs: JsonBlobs): { bytes: Buffer; format: ImageFormat; revisedPrompt?: string } | undefined {
    if (item.type === 'image_generation_call') {
      const call = item as Extract<OutputItem, { type: 'image_generation_call' }>;
      if (call.revised_prompt) this.revisedPrompt = call.revised_prompt;
      if (!call.result) return undefined;
      const image = { bytes: blobs.base64(call.result), format: formatOf(call.output_format, this.format) };
      this.images.set(call.id ?? key, image);
      return this.revisedPrompt ? { ...image, revisedPrompt: this.revisedPrompt } : image;
    } else if (item.type === 'message') {
      const message = item as Extract<OutputItem, { type: 'message' }>;
      this.text += (message.content ?? []).map((part) => (part.type === 'output_text' ? (part.text ?? '') : '')).join('');
    }
    return undefined;
  }

  /** The final response object repeats every output item; it fills whatever a garbled event lost. */
  response(response: ResponseObject, blobs: JsonBlobs): void {
    if (response.id) this.responseId = response.id;
    if (response.usage)
      this.usage = {
        inputTokens: response.usage.input_tokens,
        outputTokens: response.usage.output_tokens,
        totalTokens: response.usage.total_tokens,
      };
    (response.output ?? []).forEach((item, index) => {
      const id = item.type === 'image_generation_call' ? (item as { id?: string }).id : undefined;
      if (item.type === 'image_generation_call' && !this.images.has(id ?? `output-${index}`)) this.item(item, `output-${index}`, blobs);
    });
  }

  build(): ResponsesOutcome {
    return {
      images: [...this.images.values()],
      revisedPrompt: this.revisedPrompt,
      text: this.text || undefined,
      usage: this.usage,
      responseId: this.responseId,
    };
  }
}

/** An error the vendor reported inside the stream. */
const vendorError = (lane: string, info: { code?: string | null; type?: string | null; message?: string | null }) =>
  new UpstreamError(`The upstream reported a failure${info.message ? `: ${info.message}` : '.'}`, {
    lane,
    failure: 'vendor',
    code: info.code ?? undefined,
    type: info.type ?? undefined,
    message: info.message ?? undefined,
    // A rate limit in the stream says when in its words ("try again in 1.2s").
    retryAfterSeconds: retryAfterSeconds(undefined, info.message ?? undefined),
  });

/** Runs one streamed Responses call to its terminal event. */
export async function callResponses(call: ResponsesCall): Promise<ResponsesOutcome> {
  // The planner starts as soon as the request is out; its first event can take a while.
  call.job.phase('planning');
  return callUpstream(
    {
      lane: call.lane,
      url: call.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...call.headers },
      body: call.body,
      credentials: [call.credential],
      timeoutMs: call.timeoutMs,
      signal: call.job.signal,
    },
    (response) => readResponseStream(call, response),
  );
}

/** The fields that carry an image's base64: kept as bytes by the parse. */
const IMAGE_FIELDS = ['result', 'partial_image_b64'] as const;

function parseEvent(data: Buffer, sseEvent: string | undefined): { type: StreamEventType; event: unknown; blobs: JsonBlobs } | undefined {
  let json: unknown;
  let blobs: JsonBlobs;
  try {
    ({ value: json, blobs } = parseJsonWithBlobs(data, IMAGE_FIELDS));
  } catch {
    // A garbled frame is skipped; the terminal event repeats every output item.
    return undefined;
  }
  const type = (json as { type?: unknown } | null)?.type ?? sseEvent;
  if (!isStreamEventType(type)) return undefined;
  const parsed = STREAM_EVENTS[type].safeParse(json);
  return parsed.success ? { type, event: parsed.data, blobs } : undefined;
}

const DONE = Buffer.from('[DONE]');

async function readResponseStream(call: ResponsesCall, response: UpstreamResponse): Promise<ResponsesOutcome> {
  const outcome = new OutcomeBuilder(call.format);
  let rendering = false;
  const startRendering = () => {
    if (rendering) return;
    rendering = true;
    call.job.phase('rendering');
  };

  for await (const message of readEventStream(call.lane, response)) {
    if (message.data.length === 0 || message.data.equals(DONE)) continue;
    const parsed = parseEvent(message.data, message.event);
    if (!parsed) continue;
    const { type, blobs } = parsed;
    switch (type) {
      case 'response.output_item.added':
        if ((parsed.event as StreamEvent<typeof type>).item.type === 'image_generation_call') startRendering();
        break;
      case 'response.image_generation_call.in_progress':
      case 'response.image_generation_call.generating':
        startRendering();
        break;
      case 'response.image_generation_call.partial_image': {
        const event = parsed.event as StreamEvent<typeof type>;
        startRendering();
        call.job.partial({
          index: event.partial_image_index ?? 0,
          b64: () => blobs.text(event.partial_image_b64),
          format: formatOf(event.output_format, call.format),
        });
        break;
      }
      case 'response.output_item.done': {
        const event = parsed.event as StreamEvent<typeof type>;
        const image = outcome.item(event.item, `output-${String(event.output_index ?? '')}`, blobs);
        if (image) call.onImage?.(image);
        break;
      }
      case 'response.output_text.delta': {
        const { delta } = parsed.event as StreamEvent<typeof type>;
        if (delta) call.onText?.(delta);
        break;
      }
      case 'response.completed':
        outcome.response((parsed.event as StreamEvent<typeof type>).response, blobs);
        return outcome.build();
      case 'response.incomplete': {
        const { response: incomplete } = parsed.event as StreamEvent<typeof type>;
        const reason = incomplete.incomplete_details?.reason ?? 'unknown';
        outcome.response(incomplete, blobs);
        const built = outcome.build();
        // An image that did arrive is kept; only an empty incomplete response is an error.
        if (built.images.length > 0) return built;
        throw vendorError(call.lane, {
          code: reason === 'content_filter' ? 'content_filter' : undefined,
          message: `The response ended incomplete (${reason}).`,
        });
      }
      case 'response.failed': {
        const error = (parsed.event as StreamEvent<typeof type>).response.error;
        throw vendorError(call.lane, { code: error?.code, message: error?.message ?? 'The response failed.' });
      }
      case 'error': {
        const event = parsed.event as StreamEvent<typeof type>;
        throw vendorError(call.lane, {
          code: event.code ?? event.error?.code,
          type: event.type === 'error' ? event.error?.type : event.type,
          message: event.message ?? event.error?.message,
        });
      }
    }
  }
  throw new UpstreamError('The upstream connection broke before the response completed (the stream ended without a terminal event).', {
    lane: call.lane,
    failure: 'network',
    stage: 'stream',
    reason: 'the stream ended without a terminal event',
  });
}
