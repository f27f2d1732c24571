import { crc32 } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { imageBase64, renderImage } from '../image-renderer.js';
import { MAX_PARTIAL_IMAGES, REASONING_TOKENS, textTokens } from './catalog.js';
import { MODERATION_MESSAGE, rateLimited, retryPhrase } from './errors.js';
import type { ResponsesJob } from './request.js';
import { newId } from './state.js';
import { conversationAnswer } from './conversation.js';
import { synthesizeJson } from './synthetic-json.js';

// Plays one response: the event sequence of contract §5 (created,
// in_progress, reasoning item, image call with partial images, optional
// assistant message, completed) or a scripted failure. The same run feeds the
// SSE stream and the non-streaming JSON answer.

export interface EventSink {
  /** Sends one event (the sink adds `sequence_number`); false once the client is gone. */
  emit(event: Record<string, unknown>, options?: { malformed?: boolean; unsequenced?: boolean }): Promise<boolean>;
  /** Drops the connection mid-stream (no terminal event). */
  cut(): void;
  readonly signal: AbortSignal;
}

export interface ProducerSettings {
  readonly generationDelayMs: number;
  readonly rateLimitsEvent: Record<string, unknown> | undefined;
}

export interface ProducedResponse {
  readonly response: Record<string, unknown>;
  /** Images by item id (for stored responses). */
  readonly images: Map<string, Buffer>;
  /** False when the run stopped early (client gone, cut). */
  readonly finished: boolean;
}

const STREAM_RETRY_MS = 1200;

function revisedPrompt(prompt: string): string {
  return prompt ? `A simulated image of ${prompt}` : 'A simulated abstract image';
}

function assistantText(job: ResponsesJob, madeImage: boolean): string {
  if (job.textFormat.type === 'json_schema') return JSON.stringify(synthesizeJson(job.textFormat.schema, job.prompt));
  if (job.textFormat.type === 'json_object') return JSON.stringify({ reply: `Simulated reply to: ${job.prompt}` });
  if (madeImage) return `Here is the simulated image: ${revisedPrompt(job.prompt)}.`;
  const conversation = conversationAnswer(typeof job.echo.instructions === 'string' ? job.echo.instructions : null, job.prompt, job.model);
  if (conversation !== undefined) return conversation;
  return `Simulated reply from ${job.model}. You said: "${job.prompt.slice(0, 400)}"`;
}

/** Splits text into a few deltas the way a model streams it. */
function deltas(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [text];
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += 4) chunks.push(words.slice(index, index + 4).join(''));
  return chunks.length ? chunks : [''];
}

export async function produceResponse(job: ResponsesJob, sink: EventSink, settings: ProducerSettings): Promise<ProducedResponse> {
  const createdAt = Math.floor(Date.now() / 1000);
  const responseId = newId('resp');
  const output: Record<string, unknown>[] = [];
  const images = new Map<string, Buffer>();
  const triggers = job.triggers;
  const snapshot = (status: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id: responseId,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    completed_at: null,
    error: null,
    incomplete_details: null,
    model: job.model,
    output: [...output],
    usage: null,
    ...job.echo,
    ...extra,
  });
  const stop = (): ProducedResponse => ({ response: snapshot('in_progress'), images, finished: false });
  const fail = async (error: { code: string; message: string }): Promise<ProducedResponse> => {
    const response = snapshot('failed', { error });
    await sink.emit({ type: 'response.failed', response });
    return { response, images, finished: true };
  };

  if (settings.rateLimitsEvent && !(await sink.emit(settings.rateLimitsEvent, { unsequenced: true }))) return stop();
  if (!(await sink.emit({ type: 'response.created', response: snapshot('in_progress') }))) return stop();
  if (!(await sink.emit({ type: 'response.in_progress', response: snapshot('in_progress') }))) return stop();

  if (triggers.has('ratelimit-stream')) {
    const message = (rateLimited(job.model, triggers.value('ratelimit-stream', STREAM_RETRY_MS)).body as { error: { message: string } })
      .error.message;
    await sink.emit({ type: 'error', code: 'rate_limit_exceeded', message, param: null });
    return fail({
      code: 'rate_limit_exceeded',
      message: `Rate limit reached. Please try again in ${retryPhrase(triggers.value('ratelimit-stream', STREAM_RETRY_MS))}.`,
    });
  }
  if (triggers.has('safety-stream')) {
    return fail(
      job.lane === 'oauth'
        ? { code: 'cyber_policy', message: 'This request was flagged as potentially violating our usage policy.' }
        : { code: 'invalid_prompt', message: 'Invalid prompt: your prompt was flagged as potentially violating our usage policy.' },
    );
  }

  // Reasoning item (reasoning models think before calling the tool).
  let reasoningTokens = 0;
  if (job.reasoning) {
    reasoningTokens = REASONING_TOKENS[job.reasoning.effort] ?? 0;
    const outputIndex = output.length;
    const item = { id: newId('rs'), type: 'reasoning', summary: [] as Record<string, unknown>[] };
    if (!(await sink.emit({ type: 'response.output_item.added', output_index: outputIndex, item }))) return stop();
    if (job.reasoning.summary) {
      const text = `**Planning the request**\n\nThe user wants: ${job.prompt.slice(0, 200)}.`;
      const base = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
      if (!(await sink.emit({ type: 'response.reasoning_summary_part.added', ...base, part: { type: 'summary_text', text: '' } })))
        return stop();
      for (const delta of deltas(text))
        if (!(await sink.emit({ type: 'response.reasoning_summary_text.delta', ...base, delta }))) return stop();
      if (!(await sink.emit({ type: 'response.reasoning_summary_text.done', ...base, text }))) return stop();
      if (!(await sink.emit({ type: 'response.reasoning_summary_part.done', ...base, part: { type: 'summary_text', text } })))
        return stop();
      item.summary = [{ type: 'summary_text', text }];
    }
    const done = { ...item, ...(job.includeEncryptedReasoning ? { encrypted_content: randomBytes(48).toString('base64') } : {}) };
    output.push(done);
    if (!(await sink.emit({ type: 'response.output_item.done', output_index: outputIndex, item: done }))) return stop();
  }

  if (triggers.has('incomplete')) {
    const response = snapshot('incomplete', { incomplete_details: { reason: 'content_filter' } });
    await sink.emit({ type: 'response.incomplete', response });
    return { response, images, finished: true };
  }

  const image = job.image;
  if (image) {
    const outputIndex = output.length;
    const itemId = newId('ig');
    const base = { output_index: outputIndex, item_id: itemId };
    const described = { background: image.background, output_format: image.outputFormat, quality: image.quality, size: image.size };
    if (
      !(await sink.emit({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { id: itemId, type: 'image_generation_call', status: 'in_progress', result: null },
      }))
    )
      return stop();
    if (!(await sink.emit({ type: 'response.image_generation_call.in_progress', ...base }, { malformed: triggers.has('malformed') })))
      return stop();
    if (!(await sink.emit({ type: 'response.image_generation_call.generating', ...base }))) return stop();

    if (triggers.has('disconnect')) {
      sink.cut();
      return stop();
    }
    if (triggers.has('stall')) {
      try {
        await delay(triggers.value('stall', 2000), undefined, { signal: sink.signal });
      } catch {
        return stop();
      }
    }
    if (triggers.has('moderation-stream') || (triggers.has('moderation-unless-low') && image.moderation !== 'low')) {
      await sink.emit({ type: 'error', code: 'moderation_blocked', message: MODERATION_MESSAGE, param: null });
      output.push({ id: itemId, type: 'image_generation_call', status: 'failed', result: null });
      return fail({ code: 'image_content_policy_violation', message: MODERATION_MESSAGE });
    }

    const renderBase = {
      prompt: job.prompt,
      width: image.width,
      height: image.height,
      format: image.outputFormat,
      background: image.background,
      compression: image.compression,
      baseImage: job.inputImages[0],
    };
    const finalRender = renderImage(renderBase);
    const partialCount = Math.min(triggers.has('fewer-partials') ? 1 : image.partialImages, job.stream ? MAX_PARTIAL_IMAGES : 0);
    // Later drafts are finer; the last draft is always the finest one.
    const partialRenders = Array.from({ length: partialCount }, (_, index) =>
      renderImage({ ...renderBase, quality: 'partial', partialIndex: index + (MAX_PARTIAL_IMAGES - partialCount) }),
    );
    finalRender.catch(() => undefined);
    partialRenders.forEach((render) => render.catch(() => undefined));
    const stepDelay = settings.generationDelayMs / (partialCount + 1);

    for (let index = 0; index < partialCount; index += 1) {
      if (stepDelay > 0) {
        try {
          await delay(stepDelay, undefined, { signal: sink.signal });
        } catch {
          return stop();
        }
      }
      const partial = await partialRenders[index];
      if (
        !(await sink.emit({
          type: 'response.image_generation_call.partial_image',
          ...base,
          partial_image_index: index,
          partial_image_b64: imageBase64(partial),
          ...described,
        }))
      )
        return stop();
    }
    if (stepDelay > 0) {
      try {
        await delay(stepDelay, undefined, { signal: sink.signal });
      } catch {
        return stop();
      }
    }
    const rendered = await finalRender;
    // A vendor bug: the file's header and trailer are intact, the data between them is not.
    const result = triggers.has('corrupt-image') ? corruptImage(rendered) : rendered;
    images.set(itemId, result);
    if (!(await sink.emit({ type: 'response.image_generation_call.completed', ...base }))) return stop();
    const finalItem = {
      id: itemId,
      type: 'image_generation_call',
      status: triggers.has('generating-status') ? 'generating' : 'completed',
      revised_prompt: revisedPrompt(job.prompt),
      result: imageBase64(result),
      ...described,
    };
    output.push(finalItem);
    if (!(await sink.emit({ type: 'response.output_item.done', output_index: outputIndex, item: finalItem }))) return stop();
    // The image is final, the response is not: the connection breaks before its terminal event.
    if (triggers.has('disconnect-after-image')) {
      sink.cut();
      return stop();
    }
  }

  // The assistant's message: always without an image, and after one when the model chose the tool itself.
  let messageText = '';
  if (!image || job.commentAfterImage) {
    messageText = assistantText(job, Boolean(image));
    const outputIndex = output.length;
    const itemId = newId('msg');
    const base = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    if (
      !(await sink.emit({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      }))
    )
      return stop();
    if (!(await sink.emit({ type: 'response.content_part.added', ...base, part: { type: 'output_text', text: '', annotations: [] } })))
      return stop();
    for (const delta of deltas(messageText)) {
      const obfuscation = job.obfuscation
        ? {
            obfuscation: randomBytes(6)
              .toString('base64url')
              .slice(0, Math.max(1, 16 - delta.length)),
          }
        : {};
      if (!(await sink.emit({ type: 'response.output_text.delta', ...base, delta, logprobs: [], ...obfuscation }))) return stop();
    }
    if (!(await sink.emit({ type: 'response.output_text.done', ...base, text: messageText, logprobs: [] }))) return stop();
    const part = { type: 'output_text', text: messageText, annotations: [] };
    if (!(await sink.emit({ type: 'response.content_part.done', ...base, part }))) return stop();
    const item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    output.push(item);
    if (!(await sink.emit({ type: 'response.output_item.done', output_index: outputIndex, item }))) return stop();
  }

  const inputTokens = textTokens(job.inputText) + job.inputImages.length * 85;
  const outputTokens = reasoningTokens + textTokens(messageText) + (image ? textTokens(revisedPrompt(job.prompt)) : 0);
  const response = snapshot('completed', {
    completed_at: Math.floor(Date.now() / 1000),
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: inputTokens + outputTokens,
    },
  });
  await sink.emit({ type: 'response.completed', response });
  return { response, images, finished: true };
}

/**
 * The image a buggy vendor might send: every chunk of a PNG well formed (lengths and CRCs right)
 * but the compressed pixel data replaced by junk; other formats cut in the middle, trailer kept.
 */
export function corruptImage(image: Buffer): Buffer {
  if (image.toString('latin1', 1, 4) !== 'PNG')
    return Buffer.concat([image.subarray(0, Math.floor(image.length * 0.4)), image.subarray(image.length - 12)]);
  const out = Buffer.from(image);
  for (let offset = 8; offset + 12 <= out.length;) {
    const length = out.readUInt32BE(offset);
    if (out.toString('latin1', offset + 4, offset + 8) === 'IDAT') {
      out.fill(0x5a, offset + 8 + Math.min(2, length), offset + 8 + length);
      out.writeUInt32BE(crc32(out.subarray(offset + 4, offset + 8 + length)), offset + 8 + length);
    }
    offset += 12 + length;
  }
  return out;
}
