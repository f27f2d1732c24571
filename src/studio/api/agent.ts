import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { inputDescriptor } from './jobs-base.js';
import { PROMPT_BUILDER_AUTO_ORDER } from './prompt-builder.js';
import { imageInput, slotFields } from './requests.js';
import { assetRecord, errorPayload } from './results.js';
import {
  AGENT_ACTIONS,
  AGENT_COMMAND_NAMES,
  AGENT_ITEM_STATES,
  AGENT_LIMITS,
  type AgentCommand,
  type AgentItemState,
} from './agent-values.js';
import { API_LIMITS, REQUEST_ID_PATTERN } from './values.js';

// Agent Mode (spec: Generation modes, Agent Mode endpoints): sessions, turns,
// and the durable per-session queue. A turn is one queue item: an engine job
// (kind `agent-turn`) keyed by its session, so one runs at a time per session,
// in order. The spec leaves every field but the ids open; these are ours,
// documented in docs/API.md ("Agent Mode").

export * from './agent-values.js';

/** The image settings of a session: a generation's output fields (provider `auto` when absent). */
export const agentSessionSettings = lazy(() => z.object(slotFields).strict());
export type AgentSessionSettings = z.infer<typeof agentSessionSettings>;

const title = lazy(() => z.string().trim().min(1).max(AGENT_LIMITS.titleMaxChars));
const lock = lazy(() => z.string().trim().max(AGENT_LIMITS.lockMaxChars).nullable());

/** POST /api/agent/sessions */
export const createAgentSessionRequest = lazy(() =>
  z
    .object({
      title: title.optional(),
      settings: agentSessionSettings.optional(),
      webSearch: z.boolean().optional(),
      styleLock: lock.optional(),
      subjectLock: lock.optional(),
    })
    .strict(),
);
export type CreateAgentSessionRequest = z.infer<typeof createAgentSessionRequest>;

/** PATCH /api/agent/sessions/:id: any subset; `settings` replaces the settings; `currentImage` from history (`{ filename }`) or an upload (`{ data, name? }`), null clears it. */
export const updateAgentSessionRequest = lazy(() => createAgentSessionRequest.extend({ currentImage: imageInput.optional() }).strict());
export type UpdateAgentSessionRequest = z.infer<typeof updateAgentSessionRequest>;

/** A turn (POST …/turns) or a queued item (POST …/queue): the user's text, optional references, and the delivery fields. */
export const agentTurnRequest = lazy(() =>
  z
    .object({
      prompt: z.string().max(API_LIMITS.promptMaxChars).optional(),
      references: z.array(imageInput).max(AGENT_LIMITS.referencesMax).optional(),
      requestId: z.string().regex(REQUEST_ID_PATTERN).optional(),
      async: z.boolean().optional(),
      cancelOnDisconnect: z.boolean().optional(),
    })
    .strict(),
);
export type AgentTurnRequest = z.infer<typeof agentTurnRequest>;

/** What decided a turn, and how. */
export const agentPlan = lazy(() =>
  z.object({
    action: z.enum(AGENT_ACTIONS),
    variants: z.number().int().min(1).max(AGENT_LIMITS.variantsMax),
    /** The image prompt (with the session's locks); null for an answer. */
    prompt: z.string().nullable(),
    /** The words shown to the user. */
    reply: z.string(),
    /** `planner`: a model (its backend and model named); `rules`: the rule-based fallback; `command`: a slash command. */
    decidedBy: z.enum(['planner', 'rules', 'command']),
    backend: z.enum(PROMPT_BUILDER_AUTO_ORDER).nullable(),
    model: z.string().nullable(),
    /** Why the rules decided instead of a planner model. */
    fallbackReason: z.string().optional(),
  }),
);
export type AgentPlan = z.infer<typeof agentPlan>;

/** One turn: a queue item, its plan and what it made. `itemId` stays the same across retries; `requestId` is its latest attempt's job. */
export const agentTurn = lazy(() =>
  z.object({
    itemId: z.string(),
    sessionId: z.string(),
    requestId: z.string(),
    attempt: z.number().int(),
    state: z.enum(AGENT_ITEM_STATES),
    /** Queued: 1 runs next in its session. */
    position: z.number().int().nullable(),
    prompt: z.string(),
    command: z.enum(AGENT_COMMAND_NAMES as [AgentCommand, ...AgentCommand[]]).nullable(),
    plan: agentPlan.nullable(),
    reply: z.string().nullable(),
    finalPrompt: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    /** The image an edit started from (a history file name). */
    inputImage: z.string().nullable(),
    images: z.array(assetRecord),
    timings: z.object({ planMs: z.number(), generateMs: z.number(), totalMs: z.number() }).nullable(),
    error: errorPayload.nullable(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  }),
);
export type AgentTurn = z.infer<typeof agentTurn>;

/** How many items of a session are in each state. */
export const agentQueueSummary = lazy(() =>
  z.object(Object.fromEntries(AGENT_ITEM_STATES.map((state) => [state, z.number().int()])) as Record<AgentItemState, z.ZodNumber>),
);
export type AgentQueueSummary = z.infer<typeof agentQueueSummary>;

export const agentSession = lazy(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    settings: agentSessionSettings,
    webSearch: z.boolean(),
    styleLock: z.string().nullable(),
    subjectLock: z.string().nullable(),
    /** The image the next edit starts from. */
    currentImage: assetRecord.nullable(),
    /** Every image of the session (made by its turns or set as current), oldest first. */
    images: z.array(z.string()),
    queue: agentQueueSummary,
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type AgentSession = z.infer<typeof agentSession>;

/** GET /api/agent/sessions/:id: the session with its turns, oldest first. */
export const agentSessionBody = lazy(() => agentSession.extend({ turns: z.array(agentTurn) }));
export type AgentSessionBody = z.infer<typeof agentSessionBody>;

/** GET /api/agent/sessions */
export const agentSessionsPage = lazy(() => z.object({ sessions: z.array(agentSession) }));

/** GET /api/agent/sessions/:id/queue */
export const agentQueue = lazy(() => z.object({ sessionId: z.string(), items: z.array(agentTurn), summary: agentQueueSummary }));
export type AgentQueue = z.infer<typeof agentQueue>;

/** A stored `agent-turn` job: which item of which session; the input images held with it (jobs/inputs.ts). */
export const agentTurnJobRequest = lazy(() =>
  z.object({
    sessionId: z.string(),
    itemId: z.string(),
    prompt: z.string(),
    inputs: z.object({
      /** The session's current image when the item was queued. */
      current: inputDescriptor.extend({ filename: z.string() }).nullable(),
      references: z.array(inputDescriptor),
    }),
  }),
);
export type AgentTurnJobRequest = z.infer<typeof agentTurnJobRequest>;

/** Topic `agent` on /api/events: queue items' states and progress, and the current image. */
export const AGENT_TOPIC = 'agent';
export const agentEventPayloads = {
  item: lazy(() =>
    z.object({
      sessionId: z.string(),
      itemId: z.string(),
      requestId: z.string(),
      state: z.enum(AGENT_ITEM_STATES),
      attempt: z.number().int(),
      position: z.number().int().optional(),
      error: errorPayload.optional(),
    }),
  ),
  progress: lazy(() =>
    z.object({
      sessionId: z.string(),
      itemId: z.string(),
      requestId: z.string(),
      step: z.enum(['planning', 'planned', 'generating', 'saved']),
      action: z.enum(AGENT_ACTIONS).optional(),
      decidedBy: z.enum(['planner', 'rules', 'command']).optional(),
      variant: z.number().int().optional(),
      variants: z.number().int().optional(),
    }),
  ),
  current_image: lazy(() => z.object({ sessionId: z.string(), filename: z.string().nullable(), reason: z.enum(['turn', 'set', 'undo']) })),
} as const;
export type AgentEventName = keyof typeof agentEventPayloads;
export type AgentEventPayload<E extends AgentEventName> = z.infer<(typeof agentEventPayloads)[E]>;
