import type { Command } from 'commander';
import { jobSummary, type InflightJob, type JobRecord, type RetryAnswer } from '../../studio/api/index.js';
import { commandContext } from '../context.js';
import { table } from '../output.js';
import { localTime } from '../local-time.js';

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
          ? table([
              ['REQUEST ID', 'KIND', 'LANE', 'STATE', 'PHASE', 'STARTED'],
              ...body.jobs.map((job) => [
                job.requestId,
                job.kind,
                job.provider,
                job.position ? `${job.state} #${job.position}` : job.state,
                job.phase,
                localTime(job.startedAt),
              ]),
            ])
          : 'No jobs running or queued.',
      );
    });

  inflight
    .command('cancel')
    .argument('<requestId>', 'the job to cancel')
    .description('Cancel a job: a queued one never runs; a running one stops (its upstream call is cancelled too)')
    .action(async (requestId: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<unknown>('DELETE', `/api/inflight/${encodeURIComponent(requestId)}`, { timeoutMs: 10_000 });
      out.result(body, () => `${out.color.green('✓')} cancelled ${requestId}`);
    });

  program
    .command('job')
    .argument('<requestId>', 'the job')
    .description('Show a job: its state, phase, result or error (also after it ended)')
    .action(async (requestId: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const job = await client.json<JobRecord>('GET', `/api/jobs/${encodeURIComponent(requestId)}`, { timeoutMs: 10_000 });
      out.result(job, () => {
        const summary = jobSummary(job);
        const lines = [
          `${job.requestId}  ${job.kind} on ${job.provider ?? (job.kind === 'trace' ? 'the tracer' : 'several lanes')}${job.model ? `/${job.model}` : ''}`,
          `state: ${job.state}${job.phase ? ` (phase ${job.phase})` : ''}`,
        ];
        if (summary.prompt !== null)
          lines.push(
            `prompt: ${summary.prompt}${summary.size ? ` (${summary.size})` : ''}${summary.outputs > 1 ? `, ${summary.outputs} outputs` : ''}`,
          );
        if (summary.source !== null) lines.push(`traces: ${summary.source}`);
        if (job.position) lines.push(`queued: position ${job.position}`);
        if (job.attempts.length > 1)
          lines.push(
            `attempt ${job.attempt} of ${job.attempts.length}: ${job.attempts.map((attempt) => `${attempt.requestId} (${attempt.state})`).join(', ')}`,
          );
        if (job.error) lines.push(`${out.color.red(job.error.code)}: ${job.error.message}`);
        if (job.result && 'images' in job.result)
          lines.push(...job.result.images.map((image) => `${out.color.green('✓')} ${image.filename}`));
        if (job.result && 'filename' in job.result) lines.push(`${out.color.green('✓')} ${job.result.filename}`);
        if (job.result && 'results' in job.result) lines.push(`${job.result.succeeded} of ${job.result.results.length} outputs succeeded`);
        return lines.join('\n');
      });
    });

  program
    .command('retry')
    .argument('<requestId>', 'a failed, cancelled or interrupted job')
    .option('--request-id <id>', "the new attempt's requestId (default <first>~<attempt>)")
    .description('Run a job again as a new attempt (the same request and input images); the earlier attempts stay listed')
    .action(async (requestId: string, options: { requestId?: string }, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<RetryAnswer>('POST', `/api/jobs/${encodeURIComponent(requestId)}/retry`, {
        body: options.requestId ? { requestId: options.requestId } : {},
        timeoutMs: 10_000,
      });
      out.result(
        body,
        () =>
          `${out.color.green('✓')} attempt ${body.attempt} of ${body.retryOf} queued as ${body.requestId} (follow it with: svc job ${body.requestId})`,
      );
    });
}
