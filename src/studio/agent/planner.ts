import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import { AGENT_ACTIONS, AGENT_LIMITS, type AgentAction, type AgentPlan } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { askBackend } from '../prompt-builder/backends.js';
import { routeBackend } from '../prompt-builder/routing.js';
import { decideByRules, ruleAnswer, type Decision, type Workspace } from './rule-planner.js';

// A turn's plan. A planner model (routed like the prompt builder) reads the
// conversation, the current image's prompt and the locks, and answers a JSON
// decision; with no planner ready, or an answer that is not a plan, the rules
// decide, and the plan says which decided and why. Slash commands that force
// a decision skip the model (/question still asks it for the words).

export const PLANNER_INSTRUCTIONS =
  'You are the planner of an image workspace (Agent Mode). Read the conversation and the workspace state, then decide ' +
  'what this turn does: "answer" (words only, no image), "generate" (a fresh image) or "edit" (change the current image; ' +
  'only when there is one). Write the image prompt in English, concrete and visual, keeping the locks. ' +
  'Answer with one JSON object and nothing else: {"action": "answer" | "generate" | "edit", "variants": 1-4, "prompt": string | null, "reply": string}.';

export interface TurnContext extends Workspace {
  readonly text: string;
  readonly styleLock: string | null;
  readonly subjectLock: string | null;
  /** The session's web search switch (the planner looks things up first where its backend can). */
  readonly webSearch: boolean;
  /** Earlier turns, oldest first: what the user said and what the studio answered. */
  readonly history: readonly { readonly user: string; readonly assistant: string }[];
  /** A command that fixes the action (the model only words it). */
  readonly forced?: AgentAction;
}

/** The locks are text kept in every image prompt: added when the prompt does not hold them already. */
export function withLocks(prompt: string, locks: { styleLock: string | null; subjectLock: string | null }): string {
  let out = prompt.trim();
  const has = (text: string) => out.toLowerCase().includes(text.toLowerCase());
  if (locks.subjectLock && !has(locks.subjectLock)) out = `${out}. Subject: ${locks.subjectLock}`;
  if (locks.styleLock && !has(locks.styleLock)) out = `${out}. Style: ${locks.styleLock}`;
  return out;
}

/** The workspace as the planner reads it, after the user's words. */
function workspaceText(turn: TurnContext): string {
  return [
    'Workspace state:',
    `Current image: ${turn.hasCurrentImage ? 'yes' : 'none'}`,
    ...(turn.currentPrompt ? [`Current image prompt: ${turn.currentPrompt}`] : []),
    ...(turn.subjectLock ? [`Subject lock: ${turn.subjectLock}`] : []),
    ...(turn.styleLock ? [`Style lock: ${turn.styleLock}`] : []),
    ...(turn.forced ? [`Forced action: ${turn.forced}`] : []),
  ].join('\n');
}

const modelPlan = lazy(() =>
  z.object({
    action: z.enum(AGENT_ACTIONS),
    variants: z.coerce.number().int().min(1).max(AGENT_LIMITS.variantsMax).optional(),
    prompt: z.string().nullish(),
    reply: z.string().nullish(),
  }),
);

/** The JSON object in a model's answer (it may wrap it in words or a code fence). */
function readPlan(text: string): z.infer<typeof modelPlan> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const parsed = modelPlan.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** What the rules decide, a forced action kept. */
function ruleDecision(turn: TurnContext): Decision {
  const decision = decideByRules(turn.text, turn);
  if (!turn.forced || turn.forced === decision.action) return decision;
  if (turn.forced === 'answer') return { action: 'answer', variants: 1, prompt: null, reply: ruleAnswer(turn.text, turn) };
  return { ...decision, action: turn.forced, prompt: turn.text };
}

/** A model's decision made consistent: an edit needs a current image, an image needs a prompt. */
function settle(plan: z.infer<typeof modelPlan>, turn: TurnContext): Decision {
  let action = turn.forced ?? plan.action;
  if (action === 'edit' && !turn.hasCurrentImage) action = 'generate';
  const prompt = action === 'answer' ? null : plan.prompt?.trim() || turn.text;
  return { action, variants: action === 'answer' ? 1 : (plan.variants ?? 1), prompt, reply: plan.reply?.trim() || (prompt ?? '') };
}

export interface Planning {
  /** Called just before the planner model is asked (the billing checkpoint of the turn). */
  readonly sending: () => Promise<void>;
  readonly signal: AbortSignal;
}

/** The plan of a turn the planner decides (plain text, or /question). */
export async function planTurn(ctx: StudioContext, turn: TurnContext, planning: Planning): Promise<AgentPlan> {
  const locks = { styleLock: turn.styleLock, subjectLock: turn.subjectLock };
  const finish = (decision: Decision, by: Pick<AgentPlan, 'decidedBy' | 'backend' | 'model'> & { fallbackReason?: string }): AgentPlan => ({
    ...decision,
    prompt: decision.prompt === null ? null : withLocks(decision.prompt, locks),
    ...by,
  });
  let routed;
  try {
    routed = await routeBackend(ctx);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return finish(ruleDecision(turn), {
      decidedBy: 'rules',
      backend: null,
      model: null,
      fallbackReason: `${error.code}: ${error.message}`,
    });
  }
  const messages = [
    ...turn.history.slice(-AGENT_LIMITS.plannerTurns).flatMap((earlier) => [
      { role: 'user' as const, text: earlier.user },
      { role: 'assistant' as const, text: earlier.assistant },
    ]),
    { role: 'user' as const, text: `${turn.text}\n\n${workspaceText(turn)}` },
  ];
  let answer;
  try {
    await planning.sending();
    answer = await askBackend(
      ctx,
      routed.backend,
      routed.model,
      { instructions: PLANNER_INSTRUCTIONS, messages, webSearch: turn.webSearch },
      planning.signal,
    );
  } catch (error) {
    if (planning.signal.aborted) throw error;
    // A planner that failed does not fail the turn: the rules decide, and the plan says why.
    const why = error instanceof ServiceError ? `${error.code}: ${error.message}` : String(error);
    return finish(ruleDecision(turn), {
      decidedBy: 'rules',
      backend: null,
      model: null,
      fallbackReason: `the ${routed.backend} planner failed (${why})`,
    });
  }
  const plan = readPlan(answer.text);
  if (!plan) {
    return finish(ruleDecision(turn), {
      decidedBy: 'rules',
      backend: null,
      model: null,
      fallbackReason: `the ${routed.backend} planner answered without a plan`,
    });
  }
  return finish(settle(plan, turn), { decidedBy: 'planner', backend: routed.backend, model: routed.model });
}

/** The plan of a command that fixes the decision (/new, /edit, /variants): no model is asked. */
export function commandPlan(
  action: 'generate' | 'edit',
  text: string,
  variants: number,
  locks: { styleLock: string | null; subjectLock: string | null },
): AgentPlan {
  const prompt = withLocks(text, locks);
  return {
    action,
    variants,
    prompt,
    reply: action === 'edit' ? `Editing the current image: ${text}` : `A new image: ${text}`,
    decidedBy: 'command',
    backend: null,
    model: null,
  };
}
