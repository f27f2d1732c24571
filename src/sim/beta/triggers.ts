import { parsePromptTriggers, type PromptTriggers } from '../prompt-triggers.js';

// Prompt triggers of the `:generateContent` simulator: `[sim:name]` or
// `[sim:name=number]` anywhere in the text parts script a vendor behaviour, so
// tests and demo users reach every answer without touching the simulator.
// They are removed before the prompt is drawn or echoed.

export const BETA_TRIGGER_NAMES = [
  /** Prompt blocked: `promptFeedback.blockReason` PROHIBITED_CONTENT, no candidates. */
  'block-prompt',
  /** Output blocked: a candidate without content, `finishReason` IMAGE_SAFETY. */
  'block-image',
  /** A candidate without content, `finishReason` NO_IMAGE. */
  'no-image',
  /** Soft refusal: `finishReason` STOP with only a text part. */
  'text-only',
  /** Interim "thought" parts (text and a draft image) before the final image. */
  'thoughts',
  /** 429 RESOURCE_EXHAUSTED; `=s` the RetryInfo delay (default 37). */
  'ratelimit',
  /** 429 for a daily quota: no RetryInfo. */
  'ratelimit-daily',
  /** 500 INTERNAL, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED. */
  'server-error',
  'overloaded',
  'deadline',
  /** Wait before answering; `=ms` (default 2000). */
  'slow',
  /** A 200 whose body is cut JSON. */
  'malformed',
] as const;

export type BetaTriggerName = (typeof BETA_TRIGGER_NAMES)[number];
export type BetaTriggers = PromptTriggers<BetaTriggerName>;

export const parseBetaTriggers = (text: string): { triggers: BetaTriggers; cleaned: string } =>
  parsePromptTriggers(text, BETA_TRIGGER_NAMES);
