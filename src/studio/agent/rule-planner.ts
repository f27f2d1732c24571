import { AGENT_LIMITS, type AgentAction } from '../api/index.js';

// The rule-based planner: what a turn does when no planner model is ready (or
// its answer is not a plan). Plain rules over the user's words: a question is
// answered, an edit verb with a current image edits it, anything else is a
// fresh image; "3 variants" asks for three.

export interface Decision {
  readonly action: AgentAction;
  readonly variants: number;
  readonly prompt: string | null;
  readonly reply: string;
}

export interface Workspace {
  /** The current image's prompt, when the session has a current image. */
  readonly currentPrompt: string | null;
  readonly hasCurrentImage: boolean;
}

const QUESTION = /\?\s*$|^(what|why|how|who|which|when|where|is|are|can|could|should|would|do|does|did|explain|describe|tell me)\b/i;
const EDIT =
  /\b(make (it|them|the)|change|turn (it|the)|add|remove|replace|recolou?r|give (it|the)|without|instead|more|less|brighter|darker|bigger|smaller|edit|fix)\b/i;
const VARIANTS = /\b(\d+)\s+(variants?|versions?|options?|variations?|takes?)\b/i;

export const isQuestion = (text: string): boolean => QUESTION.test(text.trim());

/** How many variants the words ask for (1 when they do not say), within the limit. */
export function variantsAsked(text: string): number {
  const match = VARIANTS.exec(text);
  return match ? Math.min(AGENT_LIMITS.variantsMax, Math.max(1, Number(match[1]))) : 1;
}

/** The rules' answer to a question: what the workspace holds, since no model is there to say more. */
export function ruleAnswer(text: string, workspace: Workspace): string {
  const about = workspace.currentPrompt
    ? `The current image was made from: "${workspace.currentPrompt}".`
    : 'The session has no current image yet.';
  return `No planner model is ready, so this answer comes from the rules. ${about} You asked: "${text}".`;
}

export function decideByRules(text: string, workspace: Workspace): Decision {
  if (isQuestion(text)) return { action: 'answer', variants: 1, prompt: null, reply: ruleAnswer(text, workspace) };
  const variants = variantsAsked(text);
  if (workspace.hasCurrentImage && EDIT.test(text))
    return { action: 'edit', variants, prompt: text, reply: `Editing the current image: ${text}` };
  return { action: 'generate', variants, prompt: text, reply: `A new image: ${text}` };
}
