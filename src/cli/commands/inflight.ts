import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { table } from '../output.js';

interface InflightJob {
  requestId: string;
  kind: string;
  provider: string;
  model?: string;
  phase?: string;
  startedAt: string;
}

export function registerInflight(program: Command): void {
  const inflight = program.command('inflight').description('Jobs the studio is running now');

  inflight
    .command('ls')
    .description('List in-flight jobs')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ jobs: InflightJob[] }>('GET', '/api/inflight', { timeoutMs: 10_000 });
      out.result(body, () =>
        body.jobs.length
          ? table([['REQUEST ID', 'KIND', 'LANE', 'PHASE', 'STARTED'], ...body.jobs.map((job) => [job.requestId, job.kind, job.provider, job.phase ?? '', job.startedAt])])
          : 'No jobs running.',
      );
    });

  inflight
    .command('cancel')
    .argument('<requestId>', 'the job to cancel')
    .description('Cancel a job (its upstream call is cancelled too)')
    .action(async (requestId: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<unknown>('DELETE', `/api/inflight/${encodeURIComponent(requestId)}`, { timeoutMs: 10_000 });
      out.result(body, () => `${out.color.green('✓')} cancelled ${requestId}`);
    });
}
