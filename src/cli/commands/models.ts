import type { Command } from 'commander';
import type { CapabilitiesBody, ProviderStatus } from '../../studio/api/index.js';
import { EXIT_CODES } from '../../common/errors.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';
import { readableLines } from '../readable.js';
import { table } from '../output.js';
import { isMcpTarget } from './mcp-job.js';
import { printMcpModels } from './mcp-models.js';

export function registerModels(program: Command): void {
  program
    .command('models')
    .argument('[lane]', 'only this lane')
    .description('List models as <lane>/<model> with live lane status')
    .action(async (laneFilter: string | undefined, _options, command: Command) => {
      // The MCP lanes list what each model takes, and eta's list is live.
      if (isMcpTarget(laneFilter)) return printMcpModels(command, laneFilter as string);
      const { client, out } = commandContext(command);
      const [catalog, providers] = await Promise.all([
        client.json<CapabilitiesBody>('GET', '/api/capabilities', { timeoutMs: 10_000 }),
        client.json<{ providers: ProviderStatus[] }>('GET', '/api/providers', { timeoutMs: 10_000 }),
      ]);
      // A lane that does not exist is the caller's mistake, not an empty list.
      if (laneFilter !== undefined && !catalog.providers.some((provider) => provider.id === laneFilter && !provider.routingMode)) {
        const lanes = catalog.providers.filter((provider) => !provider.routingMode).map((provider) => provider.id);
        throw new CliError(`Unknown lane "${laneFilter}" (lanes: ${lanes.join(', ')}).`, EXIT_CODES.usage, 'USAGE', {
          lane: laneFilter,
          valid: lanes,
        });
      }
      const status = new Map(providers.providers.map((provider) => [provider.id, provider]));
      const defaults = new Map(
        catalog.providers.map((provider) => [provider.id, provider.routingMode ? undefined : provider.defaultModel]),
      );
      const entries = catalog.models.flatMap((model) =>
        model.providers
          .filter((lane) => !laneFilter || lane === laneFilter)
          .map((lane) => ({
            target: `${lane}/${model.id}`,
            lane,
            model: model.id,
            kind: model.kind,
            default: defaults.get(lane) === model.id,
            compatibility: Boolean(model.compatibility),
            aliases: model.aliases,
            state: status.get(lane)?.state ?? 'unknown',
            reason: status.get(lane)?.reason ?? '',
          })),
      );
      const { color } = out;
      out.result({ models: entries }, () =>
        table([
          ['TARGET', 'KIND', 'LANE STATUS', 'NOTES'].map((cell) => color.bold(cell)),
          ...entries.map((entry) => [
            entry.target,
            entry.kind,
            entry.state === 'ready' ? color.green(entry.state) : color.yellow(entry.state),
            [
              entry.default ? 'default' : '',
              entry.compatibility ? 'compatibility' : '',
              entry.aliases.length ? `alias ${entry.aliases.join(', ')}` : '',
            ]
              .filter(Boolean)
              .join('; '),
          ]),
        ]),
      );
    });

  program
    .command('capabilities')
    .description('Show what the server supports: version, lanes, models, valid values and limits')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<CapabilitiesBody>('GET', '/api/capabilities', { timeoutMs: 10_000 });
      out.result(body, () => {
        const lines = [
          `studio ${body.version}`,
          `providers: ${body.providers.map((provider) => provider.id).join(', ')}`,
          `models: ${body.models.length}`,
        ];
        // Every value, nested ones indented (`--json` for the whole document).
        for (const [name, value] of Object.entries(body.values)) lines.push(...readableLines(name, value));
        lines.push(...readableLines('limits', body.limits));
        return lines.join('\n');
      });
    });
}
