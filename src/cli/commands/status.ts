import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { table } from '../output.js';
import type { ProviderStatus, TeamBody } from '../../studio/api/index.js';
import { localTime } from '../local-time.js';

interface Health {
  ok: boolean;
  version: string;
  startedAt: string;
  demo: boolean;
  alpha: { auth: string };
}

const STORAGE_WORDS = { sqlite: 'SQLite', postgresql: 'PostgreSQL', files: 'files', s3: 'S3' } as const;

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('Show whether the studio is running, where, and which lanes are ready')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const [health, providers, team] = await Promise.all([
        client.json<Health>('GET', '/api/health', { timeoutMs: 10_000 }),
        client.json<{ providers: ProviderStatus[] }>('GET', '/api/providers', { timeoutMs: 10_000 }),
        client.json<TeamBody>('GET', '/api/team', { timeoutMs: 10_000 }),
      ]);
      const { color } = out;
      out.result({ server: client.server, health, providers: providers.providers, team }, () => {
        const ready = providers.providers.filter((provider) => provider.state === 'ready').length;
        const head = [
          `${color.green('●')} studio ${health.version} at ${client.server.url}${health.demo ? color.yellow(' (demo: simulated upstreams)') : ''}`,
          color.dim(`  found via ${client.server.source}; up since ${localTime(health.startedAt)}; alpha auth: ${health.alpha.auth}`),
          color.dim(
            `  instance ${team.instance}; state in ${STORAGE_WORDS[team.storage.database]}, images in ${STORAGE_WORDS[team.storage.assets]}`,
          ),
          // Team mode: every studio on the shared queue that holds a lease now.
          ...(team.storage.database === 'postgresql'
            ? [
                `  studios holding jobs: ${team.instances.length}`,
                ...team.instances.map(
                  (holder) =>
                    `    ${holder.instance}${holder.self ? ' (this one)' : ''}: ${holder.running} job${holder.running === 1 ? '' : 's'}`,
                ),
              ]
            : []),
          `  lanes ready: ${ready} of ${providers.providers.length}`,
        ];
        const rows = providers.providers.map((provider) => [
          `  ${provider.id}`,
          provider.state === 'ready' ? color.green(provider.state) : color.yellow(provider.state),
          color.dim(provider.reason),
        ]);
        return `${head.join('\n')}\n${table(rows)}`;
      });
    });
}
