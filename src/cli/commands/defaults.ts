import type { Command } from 'commander';
import { CliError } from '../client.js';
import { EXIT_CODES } from '../../common/errors.js';
import { commandContext } from '../context.js';
import { table } from '../output.js';

type Sourced = { value: unknown; source: string };
type Defaults = Record<string, Sourced | Record<string, Sourced>>;
/** PUT's answer also says which lanes stored another model than the one asked for. */
type Equivalents = Record<string, { requested: string; stored: string }>;

const KEYS = ['model', 'reasoning', 'video', 'plannerModel'] as const;

function render(defaults: Defaults): string {
  const rows: string[][] = [];
  for (const [scope, entry] of Object.entries(defaults)) {
    if (scope === 'equivalents') continue;
    if (entry && typeof entry === 'object' && 'source' in entry) {
      rows.push([scope, JSON.stringify((entry as Sourced).value), (entry as Sourced).source]);
      continue;
    }
    for (const [name, value] of Object.entries(entry as Record<string, Sourced>)) {
      rows.push([`${scope}.${name}`, typeof value.value === 'string' ? value.value : JSON.stringify(value.value), value.source]);
    }
  }
  return table([['SETTING', 'VALUE', 'SOURCE'], ...rows]);
}

export function registerDefaults(program: Command): void {
  const defaults = program.command('defaults').description('Read or persist the default model, reasoning effort and video target');

  defaults
    .command('get')
    .description('Show the defaults in force and where each comes from')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<Defaults>('GET', '/api/defaults', { timeoutMs: 10_000 });
      out.result(body, () => render(body));
    });

  defaults
    .command('set')
    .argument('<key>', `one of ${KEYS.join(', ')}`)
    .argument('<value>', 'model id, reasoning effort, <lane>/<model> for video, or the alpha planner (alpha-4.3, alpha-4.5, alpha-4.6)')
    .description('Persist a default (model and reasoning apply to both the oauth and api lanes)')
    .action(async (key: string, value: string, _options, command: Command) => {
      if (!(KEYS as readonly string[]).includes(key)) {
        throw new CliError(`Unknown setting "${key}": use one of ${KEYS.join(', ')}.`, EXIT_CODES.usage, 'USAGE');
      }
      const { client, out } = commandContext(command);
      const body = await client.json<Defaults & { equivalents?: Equivalents }>('PUT', '/api/defaults', {
        body: { [key]: value },
        timeoutMs: 10_000,
      });
      const notes = Object.entries(body.equivalents ?? {}).map(
        ([lane, { stored }]) => `  ${lane} has no ${value}: its default is the nearest equivalent, ${stored}`,
      );
      out.result(body, () => [`${out.color.green('✓')} ${key} = ${value}`, ...notes, render(body)].join('\n'));
    });
}
