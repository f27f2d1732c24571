import { ServiceError } from '../errors.js';
import { AGENT_COMMAND_NAMES, AGENT_COMMANDS, AGENT_LIMITS, isProviderId, type AgentCommand, type ProviderId } from '../api/index.js';
import { isKnownModel, resolveModel } from '../catalog/models.js';
import { LANES } from '../catalog/registry.js';

// Slash commands of a turn (docs/API.md, "Agent Mode"). A turn's text is
// parsed when it is queued (a bad command is refused then, with its code) and
// again when it runs (the stored text is the source of truth).

export type ParsedTurn =
  | { readonly kind: 'plan'; readonly command: null; readonly text: string }
  | { readonly kind: 'question' | 'edit' | 'new'; readonly command: AgentCommand; readonly text: string }
  | { readonly kind: 'variants'; readonly command: 'variants'; readonly text: string; readonly variants: number }
  | { readonly kind: 'lane'; readonly command: 'lane'; readonly provider: ProviderId; readonly model?: string }
  | { readonly kind: 'undo' | 'help'; readonly command: AgentCommand };

const usages = () => AGENT_COMMAND_NAMES.map((name) => AGENT_COMMANDS[name].usage);

/** The text /help answers. */
export const helpText = (): string =>
  [
    'Slash commands:',
    ...AGENT_COMMAND_NAMES.map((name) => `${AGENT_COMMANDS[name].usage}: ${AGENT_COMMANDS[name].does}`),
    'Anything else is planned: an answer, a new image, or an edit of the current image.',
  ].join('\n');

const needsText = (command: AgentCommand, text: string): string => {
  if (!text)
    throw new ServiceError('AGENT_PROMPT_REQUIRED', `${AGENT_COMMANDS[command].usage}: the command needs its text.`, {
      details: { field: 'prompt', command, usage: AGENT_COMMANDS[command].usage },
    });
  return text;
};

const invalid = (command: AgentCommand, message: string, extra: Record<string, unknown> = {}): ServiceError =>
  new ServiceError('AGENT_COMMAND_INVALID', `${AGENT_COMMANDS[command].usage}: ${message}`, {
    details: { field: 'prompt', command, usage: AGENT_COMMANDS[command].usage, ...extra },
  });

/** `/lane <lane>[/<model>]`: a provider id, and a model of that lane (checked by the catalog). */
function parseLane(argument: string): { provider: ProviderId; model?: string } {
  const [provider, ...rest] = argument.split('/');
  const model = rest.join('/') || undefined;
  if (!isProviderId(provider)) throw invalid('lane', `"${provider}" is not a lane.`, { valid: Object.keys(LANES).concat('auto') });
  if (provider === 'auto') {
    if (model !== undefined && !isKnownModel(model)) throw invalid('lane', `"${model}" is not a model any lane offers.`);
  } else {
    if (!LANES[provider].adapter) throw invalid('lane', `the ${provider} lane is not available in this build.`);
    // The lane's own refusal (its code names what it offers).
    if (model !== undefined) resolveModel(LANES[provider], model);
  }
  return { provider, ...(model !== undefined ? { model } : {}) };
}

export function parseTurn(prompt: string): ParsedTurn {
  const text = prompt.trim();
  if (!text.startsWith('/')) return { kind: 'plan', command: null, text };
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(text);
  const name = (match?.[1] ?? '').toLowerCase();
  const argument = (match?.[2] ?? '').trim();
  const command = AGENT_COMMAND_NAMES.find((known) => known === name);
  if (!command) {
    throw new ServiceError('AGENT_UNKNOWN_COMMAND', `Unknown command "/${name}". Commands: ${usages().join(', ')}.`, {
      details: { field: 'prompt', command: name, commands: usages() },
    });
  }
  switch (command) {
    case 'question':
    case 'edit':
    case 'new':
      return { kind: command, command, text: needsText(command, argument) };
    case 'variants': {
      const [count, ...words] = argument.split(/\s+/);
      const variants = Number(count);
      if (!Number.isInteger(variants) || variants < 1 || variants > AGENT_LIMITS.variantsMax)
        throw invalid('variants', `n must be a whole number from 1 to ${AGENT_LIMITS.variantsMax}.`, {
          valid: { min: 1, max: AGENT_LIMITS.variantsMax },
        });
      return { kind: 'variants', command, variants, text: needsText(command, words.join(' ').trim()) };
    }
    case 'lane':
      if (!argument) throw invalid('lane', 'name a lane.');
      return { kind: 'lane', command, ...parseLane(argument) };
    case 'undo':
    case 'help':
      if (argument) throw invalid(command, 'the command takes no text.');
      return { kind: command, command };
  }
}
