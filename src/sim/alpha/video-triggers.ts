import { parsePromptTriggers, type PromptTriggers } from '../prompt-triggers.js';

// Prompt triggers of the simulator's video jobs: `[sim:name]` or
// `[sim:name=number]` in the prompt. The planner copies every trigger into the
// final prompt, so a trigger in the user's prompt reaches the video call.

export const VIDEO_TRIGGER_NAMES = [
  /** The job ends `failed` with an error. */
  'video-fail',
  /** The job ends `expired`. */
  'video-expire',
  /** The job ends `done` with `respect_moderation: false` (blocked by moderation, no usable video). */
  'video-moderated',
  /** Progress stops moving for `=ms` (default 3000) at about a third of the way, then goes on. */
  'video-stall',
  /** The job takes `=ms` (default: the simulator's video time). */
  'video-slow',
  /** Pending polls answer 202 with an empty body (the contract allows both). */
  'video-quiet',
  /** The done answer omits `status` (older responses: a `video.url` means done). */
  'video-no-status',
  /** The create call answers 500. */
  'video-create-error',
  /** The create call answers 429 with Retry-After; `=s` (default 7). */
  'video-ratelimit',
] as const;

export type VideoTriggerName = (typeof VIDEO_TRIGGER_NAMES)[number];

export const parseVideoTriggers = (text: string): { triggers: PromptTriggers<VideoTriggerName>; cleaned: string } => {
  const parsed = parsePromptTriggers(text, VIDEO_TRIGGER_NAMES);
  // Other vendors' and the image step's triggers are not drawn into the picture either.
  return {
    triggers: parsed.triggers,
    cleaned: parsed.cleaned
      .replace(/\[sim:[a-z0-9-]+(?:=\d+)?\]/g, '')
      .replace(/\s{2,}/g, ' ')
      .trim(),
  };
};
