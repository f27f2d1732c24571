import type { PromptBuilderBackend } from '../api/index.js';
import { TEXT_LANES, type TextLane } from '../catalog/registry.js';
import type { StudioContext } from '../context.js';
import type { TextAnswer, TextCall } from '../lanes/text-model.js';

// The builder's backends are the text lanes (catalog/registry.ts: every lane
// that declares a text model, in the spec's auto order). One answer is the
// lane's text model called under the builder's budget; protocols, credentials,
// refreshes, masking and error codes are the lane's own.

/** The conversation of one call: the text call without its model (routing picks it). */
export type Conversation = Omit<TextCall, 'model'>;
export type { TextAnswer };

/** The budget of one text call (SVC_PROMPT_BUILDER_TIMEOUT_MS). */
export function textBudgetMs(ctx: StudioContext): number {
  const override = Number(ctx.env.SVC_PROMPT_BUILDER_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? override : 60_000;
}

/** The text lane behind a backend id. */
export function backendLane(backend: PromptBuilderBackend): TextLane {
  const lane = TEXT_LANES.find((candidate) => candidate.id === backend);
  // The registry checks every backend id has its lane when it loads.
  if (!lane) throw new Error(`No text lane for the ${backend} prompt builder backend.`);
  return lane;
}

/** Sends the conversation to the backend's text model with the model; errors in the lane's codes. */
export async function askBackend(
  ctx: StudioContext,
  backend: PromptBuilderBackend,
  model: string,
  conversation: Conversation,
  signal: AbortSignal,
): Promise<TextAnswer> {
  return backendLane(backend).text.generate(ctx, { ...conversation, model }, { signal, deadline: Date.now() + textBudgetMs(ctx) });
}
