// Agent Mode's plain values (no zod), so the web UI can use them at run time:
// its limits, item states, plan actions and slash commands. The schemas are
// in agent.ts, which re-exports these.

/** Ours, where the spec is silent. */
export const AGENT_LIMITS = {
  titleMaxChars: 200,
  lockMaxChars: 2000,
  variantsMax: 4,
  referencesMax: 3,
  /** Earlier turns the planner reads (the newest ones). */
  plannerTurns: 8,
} as const;

/** A queue item's life (the spec: "states and transitions are not shown"). */
export const AGENT_ITEM_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type AgentItemState = (typeof AGENT_ITEM_STATES)[number];
/** Cancel works on these; retry on the others that ended badly. */
export const AGENT_CANCELLABLE_STATES: readonly AgentItemState[] = ['queued', 'running'];
export const AGENT_RETRYABLE_STATES: readonly AgentItemState[] = ['failed', 'cancelled'];

/** What a plan decides: words only, a fresh image, or an edit of the current image. */
export const AGENT_ACTIONS = ['answer', 'generate', 'edit'] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];

/** The slash commands (`/help` lists them with their usage). */
export const AGENT_COMMANDS = {
  question: { usage: '/question <text>', does: 'answer only, no image' },
  variants: { usage: '/variants <n> <prompt>', does: `a fresh image in n variants (1-${AGENT_LIMITS.variantsMax})` },
  edit: { usage: '/edit <prompt>', does: 'edit the current image' },
  new: { usage: '/new <prompt>', does: 'a fresh image, whatever the planner would say' },
  lane: { usage: '/lane <lane>[/<model>]', does: "set the session's lane (and model) for the next turns" },
  undo: { usage: '/undo', does: 'the current image goes back one step' },
  help: { usage: '/help', does: 'this list' },
} as const;
export type AgentCommand = keyof typeof AGENT_COMMANDS;
export const AGENT_COMMAND_NAMES = Object.keys(AGENT_COMMANDS) as AgentCommand[];
