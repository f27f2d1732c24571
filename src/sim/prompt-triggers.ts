// Prompt triggers for the simulators of the gamma, delta and epsilon vendors:
// `[sim:name]` or `[sim:name=number]` anywhere in the prompt scripts one
// behaviour (a failure, a variant of the answer's shape), so tests and demo
// users reach every path without touching the simulator. Triggers are removed
// from the prompt before it is drawn.

export interface PromptTriggers<Name extends string> {
  readonly has: (name: Name) => boolean;
  /** The `=number` of a trigger, or `fallback`. */
  readonly value: (name: Name, fallback: number) => number;
  readonly names: readonly Name[];
}

const PATTERN = /\[sim:([a-z0-9-]+)(?:=(\d+))?\]/g;

/** The known triggers of `text` (unknown ones stay in the prompt) and the prompt without them. */
export function parsePromptTriggers<Name extends string>(
  text: string,
  known: readonly Name[],
): { triggers: PromptTriggers<Name>; cleaned: string } {
  const found = new Map<Name, number | undefined>();
  const cleaned = text
    .replace(PATTERN, (match, name: string, value: string | undefined) => {
      if (!(known as readonly string[]).includes(name)) return match;
      found.set(name as Name, value === undefined ? undefined : Number(value));
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
