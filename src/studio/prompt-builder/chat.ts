import type { PromptBuilderChatAnswer, PromptBuilderChatRequest } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { askBackend } from './backends.js';
import { routeBackend } from './routing.js';

// POST /api/prompt-builder/chat: the conversation goes to the routed backend
// with the builder's instructions; the answer's last `Prompt:` line is the
// suggested prompt, given apart from the chat text so a UI applies it in one click.

export const BUILDER_INSTRUCTIONS =
  'You are the prompt builder of an image studio. Help the user write one image prompt: say briefly what would ' +
  'make it better (subject, composition, light, style, colour), ask about what is missing, and keep their intent. ' +
  'End every answer with one line of the form "Prompt: <the whole image prompt, one paragraph>".';

/** `Prompt: …`, also in bold as models write it: `**Prompt**: …` or `**Prompt:** …`. */
const PROMPT_LINE = /^[ \t]*(?:\*\*)?prompt(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*(.+)$/gim;

/** The chat text and the suggested prompt (the last `Prompt:` line), apart. */
export function splitSuggestion(text: string): { reply: string; suggestedPrompt: string | null } {
  const matches = [...text.matchAll(PROMPT_LINE)];
  const last = matches.at(-1);
  if (!last || last.index === undefined) return { reply: text.trim(), suggestedPrompt: null };
  const suggestedPrompt = last[1]
    .trim()
    .replace(/^["“]|["”]$/g, '')
    .trim();
  const reply = `${text.slice(0, last.index)}${text.slice(last.index + last[0].length)}`.trim();
  return { reply, suggestedPrompt: suggestedPrompt || null };
}

export async function builderChat(
  ctx: StudioContext,
  request: PromptBuilderChatRequest,
  signal: AbortSignal,
): Promise<PromptBuilderChatAnswer> {
  const routed = await routeBackend(ctx, { backend: request.backend, model: request.model });
  const messages = request.messages.map((message, index) => {
    const last = index === request.messages.length - 1;
    // The prompt being improved goes with the newest message, where the model reads it last.
    const text = last && request.currentPrompt ? `${message.content}\n\nCurrent prompt: ${request.currentPrompt}` : message.content;
    return { role: message.role, text };
  });
  const answer = await askBackend(ctx, routed.backend, routed.model, { instructions: BUILDER_INSTRUCTIONS, messages }, signal);
  const { reply, suggestedPrompt } = splitSuggestion(answer.text);
  return {
    reply,
    suggestedPrompt,
    requestedBackend: routed.requested,
    backend: routed.backend,
    model: routed.model,
    ...(answer.usage ? { usage: answer.usage } : {}),
  };
}
