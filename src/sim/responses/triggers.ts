// Prompt triggers: `[sim:name]` or `[sim:name=number]` anywhere in the prompt
// script a behaviour deterministically, so tests and demo users can reach
// every error path without touching the simulator. They are removed from the
// prompt before it is drawn or echoed.

export const TRIGGER_NAMES = [
  'moderation',
  'moderation-stream',
  'moderation-unless-low',
  'safety',
  'safety-stream',
  'unauthorized',
  'token-expired',
  'ratelimit',
  'ratelimit-stream',
  'quota',
  'usage-not-included',
  'server-error',
  'overloaded',
  'disconnect',
  'disconnect-after-image',
  'slow',
  'stall',
  'malformed',
  'incomplete',
  'no-image',
  'corrupt-image',
  'fewer-partials',
  'generating-status',
  'wire-quirks',
  'done-sentinel',
] as const;

export type TriggerName = (typeof TRIGGER_NAMES)[number];

export interface Triggers {
  readonly has: (name: TriggerName) => boolean;
  /** The `=number` of a trigger, or `fallback`. */
  readonly value: (name: TriggerName, fallback: number) => number;
  readonly names: readonly TriggerName[];
}

const PATTERN = /\[sim:([a-z-]+)(?:=(\d+))?\]/g;

export function parseTriggers(text: string): { triggers: Triggers; cleaned: string } {
  const found = new Map<TriggerName, number | undefined>();
  const cleaned = text
    .replace(PATTERN, (match, name: string, value: string | undefined) => {
      if (!(TRIGGER_NAMES as readonly string[]).includes(name)) return match;
      found.set(name as TriggerName, value === undefined ? undefined : Number(value));
      return '';
    })
    .replace(/\s{2,}/g, ' ')
    .trim();
  return {
    cleaned,
    triggers: {
      has: (name) => found.has(name),
      value: (name, fallback) => found.get(name) ?? fallback,
      names: [...found.keys()],
    },
  };
}
