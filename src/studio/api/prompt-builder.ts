import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { API_LIMITS } from './values.js';

// The prompt builder (spec: "Prompt builder backend", Prompt builder resource):
// a conversation that helps write an image prompt, routed independently of the
// image lane. The same routing serves Agent Mode's planner.

/** `auto` tries these in this order (spec). */
export const PROMPT_BUILDER_AUTO_ORDER = ['oauth', 'alpha', 'api', 'alpha-api'] as const;
export type PromptBuilderBackend = (typeof PROMPT_BUILDER_AUTO_ORDER)[number];
/** What the settings offer. */
export const PROMPT_BUILDER_CHOICES = ['auto', 'oauth', 'api', 'alpha', 'alpha-api'] as const;
export type PromptBuilderChoice = (typeof PROMPT_BUILDER_CHOICES)[number];

/** Ours, where the spec is silent. */
export const PROMPT_BUILDER_LIMITS = { messagesMax: 40, messageMaxChars: API_LIMITS.promptMaxChars } as const;

const model = lazy(() => z.string().trim().min(1).max(200));

/** POST /api/prompt-builder/chat: the conversation so far (the last message the user's), optionally a prompt to improve, and a backend/model for this call only. */
export const promptBuilderChatRequest = lazy(() =>
  z
    .object({
      messages: z
        .array(
          z
            .object({ role: z.enum(['user', 'assistant']), content: z.string().trim().min(1).max(PROMPT_BUILDER_LIMITS.messageMaxChars) })
            .strict(),
        )
        .min(1)
        .max(PROMPT_BUILDER_LIMITS.messagesMax)
        .refine((messages) => messages.at(-1)?.role === 'user', { message: 'the last message must be the user’s' }),
      currentPrompt: z.string().max(API_LIMITS.promptMaxChars).optional(),
      backend: z.enum(PROMPT_BUILDER_CHOICES).optional(),
      model: model.optional(),
    })
    .strict(),
);
export type PromptBuilderChatRequest = z.infer<typeof promptBuilderChatRequest>;

export const promptBuilderChatAnswer = lazy(() =>
  z.object({
    /** The chat text, without the suggested prompt. */
    reply: z.string(),
    /** The prompt to apply with one click; null when the answer suggests none. */
    suggestedPrompt: z.string().nullable(),
    requestedBackend: z.enum(PROMPT_BUILDER_CHOICES),
    backend: z.enum(PROMPT_BUILDER_AUTO_ORDER),
    model: z.string(),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
  }),
);
export type PromptBuilderChatAnswer = z.infer<typeof promptBuilderChatAnswer>;

/** PUT /api/prompt-builder/config: the pair (a null model: the backend's default). */
export const promptBuilderConfigRequest = lazy(() =>
  z.object({ backend: z.enum(PROMPT_BUILDER_CHOICES), model: model.nullable().optional() }).strict(),
);
export type PromptBuilderConfigRequest = z.infer<typeof promptBuilderConfigRequest>;

const source = lazy(() => z.enum(['env', 'config', 'default']));

/** GET /api/prompt-builder/config */
export const promptBuilderConfig = lazy(() =>
  z.object({
    backend: z.enum(PROMPT_BUILDER_CHOICES),
    /** Null: the chosen backend's default. */
    model: z.string().nullable(),
    source: z.object({ backend: source, model: source }),
    /** True when an environment variable fixes it: PUT cannot change it. */
    locked: z.object({ backend: z.boolean(), model: z.boolean() }),
    env: z.object({ backend: z.string(), model: z.string() }),
    autoOrder: z.array(z.enum(PROMPT_BUILDER_AUTO_ORDER)),
    backends: z.array(
      z.object({
        id: z.enum(PROMPT_BUILDER_AUTO_ORDER),
        ready: z.boolean(),
        reason: z.string(),
        defaultModel: z.string(),
        models: z.array(z.string()),
      }),
    ),
  }),
);
export type PromptBuilderConfig = z.infer<typeof promptBuilderConfig>;
