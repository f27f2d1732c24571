import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';

// The Responses stream events the lanes read (contract §5), as schemas: only
// the fields we use are checked, everything else passes. An event that fails
// its schema is skipped like a garbled frame (the terminal event repeats every
// output item), never half-read.

const text = lazy(() => z.string());

export const imageCallItem = lazy(() =>
  z
    .object({
      type: z.literal('image_generation_call'),
      id: text.optional(),
      status: text.nullish(),
      /** Base64 of the final image; a non-empty result is success whatever `status` says. */
      result: text.nullish(),
      revised_prompt: text.nullish(),
      output_format: text.nullish(),
    })
    .passthrough(),
);

export const messageItem = lazy(() =>
  z
    .object({
      type: z.literal('message'),
      content: z.array(z.object({ type: text, text: text.optional() }).passthrough()).nullish(),
    })
    .passthrough(),
);

/** An output item: the two kinds we read, or any other (reasoning, web search). */
export const outputItem = lazy(() => z.union([imageCallItem, messageItem, z.object({ type: text }).passthrough()]));
export type OutputItem = z.infer<typeof outputItem>;

export const usage = lazy(() =>
  z
    .object({ input_tokens: z.number().optional(), output_tokens: z.number().optional(), total_tokens: z.number().optional() })
    .passthrough(),
);

export const responseObject = lazy(() =>
  z
    .object({
      id: text.optional(),
      status: text.optional(),
      output: z.array(outputItem).nullish(),
      usage: usage.nullish(),
      incomplete_details: z.object({ reason: text.nullish() }).passthrough().nullish(),
      error: z.object({ code: text.nullish(), message: text.nullish() }).passthrough().nullish(),
    })
    .passthrough(),
);
export type ResponseObject = z.infer<typeof responseObject>;

/** The events that change what we know, by type; other types are ignored. */
export const STREAM_EVENTS = {
  'response.output_item.added': lazy(() => z.object({ item: outputItem }).passthrough()),
  'response.image_generation_call.in_progress': lazy(() => z.object({}).passthrough()),
  'response.image_generation_call.generating': lazy(() => z.object({}).passthrough()),
  'response.image_generation_call.partial_image': lazy(() =>
    z.object({ partial_image_b64: text, partial_image_index: z.number().int().optional(), output_format: text.nullish() }).passthrough(),
  ),
  'response.output_item.done': lazy(() => z.object({ item: outputItem, output_index: z.number().int().optional() }).passthrough()),
  /** A piece of the assistant's text (text calls stream it on). */
  'response.output_text.delta': lazy(() => z.object({ delta: text }).passthrough()),
  'response.completed': lazy(() => z.object({ response: responseObject }).passthrough()),
  'response.incomplete': lazy(() => z.object({ response: responseObject }).passthrough()),
  'response.failed': lazy(() => z.object({ response: responseObject }).passthrough()),
  /** Contract: `{type:"error", code, message, param}`; some backends nest an `error` object instead. */
  error: lazy(() =>
    z
      .object({
        code: text.nullish(),
        message: text.nullish(),
        type: text.nullish(),
        error: z.object({ code: text.nullish(), message: text.nullish(), type: text.nullish() }).passthrough().nullish(),
      })
      .passthrough(),
  ),
} as const;

export type StreamEventType = keyof typeof STREAM_EVENTS;
export type StreamEvent<T extends StreamEventType> = z.infer<(typeof STREAM_EVENTS)[T]>;

export const isStreamEventType = (type: unknown): type is StreamEventType => typeof type === 'string' && Object.hasOwn(STREAM_EVENTS, type);
