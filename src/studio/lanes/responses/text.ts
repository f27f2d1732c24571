import type { TextAnswer, TextCall, TextJob, TextModelEntry } from '../text-model.js';
import type { LaneJob, ModelSpec } from '../types.js';
import { responsesLaneError, type ResponsesLane } from './errors.js';
import { callResponses } from './stream.js';

// The text capability of the two Responses lanes: one streamed `POST …/responses`
// with the conversation as input and no image tool (`api` adds its web_search
// tool when asked), its text deltas passed on as they arrive. The lanes bring
// their URL, credential and `store`; failures come back in their codes.

/** Where and how one lane sends a text call. */
export interface ResponsesTextTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The credential in `headers`, masked in anything reported. */
  readonly credential: string;
  /** The body's `store`, when the backend needs it said (oauth: false). */
  readonly store?: boolean;
  /** The call's `webSearch` adds the web_search tool (false: never sent). */
  readonly webSearch: boolean;
}

/** A lane's chat models as text model entries. */
export const textModelEntries = (models: readonly ModelSpec[]): TextModelEntry[] =>
  models
    .filter((model) => model.kind === 'chat')
    .map((model) => ({ id: model.id, ...(model.label ? { label: model.label } : {}), description: model.description }));

function body(model: string, call: TextCall, target: ResponsesTextTarget): Blob {
  const out: Record<string, unknown> = {
    model,
    instructions: call.instructions,
    input: call.messages.map((message) => ({
      role: message.role,
      content: [{ type: message.role === 'user' ? 'input_text' : 'output_text', text: message.text }],
    })),
    stream: true,
  };
  if (target.store !== undefined) out.store = target.store;
  if (target.webSearch && call.webSearch) out.tools = [{ type: 'web_search' }];
  return new Blob([JSON.stringify(out)], { type: 'application/json' });
}

/** One text call to its terminal event; `upstreamModel` is the id sent (the lane's mapping of `call.model`). */
export async function responsesText(
  lane: ResponsesLane,
  call: TextCall,
  upstreamModel: string,
  job: TextJob,
  target: ResponsesTextTarget,
): Promise<TextAnswer> {
  // A text call has no phases or partials to report: only its cancel and deadline matter.
  const streamJob: LaneJob = { signal: job.signal, deadline: job.deadline, phase: () => {}, partial: () => {}, sending: async () => {} };
  try {
    const outcome = await callResponses({
      lane,
      url: target.url,
      headers: target.headers,
      credential: target.credential,
      body: body(upstreamModel, call, target),
      timeoutMs: Math.max(1, job.deadline - Date.now()),
      format: 'png',
      job: streamJob,
      // Nothing reaches the caller once it cancelled (events already read may still be parsed).
      onText: call.onDelta && ((delta) => !job.signal.aborted && call.onDelta?.(delta)),
    });
    return {
      text: outcome.text ?? '',
      ...(outcome.usage ? { usage: { inputTokens: outcome.usage.inputTokens ?? 0, outputTokens: outcome.usage.outputTokens ?? 0 } } : {}),
    };
  } catch (error) {
    throw responsesLaneError(lane, error);
  }
}
