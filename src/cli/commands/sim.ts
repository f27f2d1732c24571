import type { Command } from 'commander';
import { closeOnSignals } from '../../common/listen.js';
import { EXIT_CODES } from '../../common/errors.js';
import { CliError } from '../client.js';

function parseNumber(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > max)
    throw new CliError(`${name} must be a whole number from 0 to ${max}, got "${value}".`, EXIT_CODES.usage, 'USAGE');
  return number;
}

/**
 * `svc sim serve`: every upstream simulator in one process, so a studio can be
 * killed while the upstream keeps going. Prints one JSON line: the lane base
 * URLs and exactly the environment a studio needs to use them.
 */
export function registerSim(program: Command): void {
  const sim = program.command('sim').description('Upstream simulators (stand-ins for every vendor, offline)');
  sim
    .command('serve')
    .description('Run every simulator in this process; print {"upstreams", "env"} as one JSON line, then serve until stopped')
    .option('-p, --port <port>', 'port of the first simulator (default: any free port)')
    .option('--latency <ms>', 'make every long-running upstream operation (a render, a job, a prediction) take about this long')
    .option('--dir <path>', 'where to write the simulated session files (default: a new temp directory)')
    .action(async (options: { port?: string; latency?: string; dir?: string }) => {
      const { startSimulators } = await import('../../demo/demo.js');
      const running = await startSimulators({
        port: parseNumber(options.port, '--port', 65535),
        latencyMs: parseNumber(options.latency, '--latency', 3_600_000),
        dir: options.dir,
      });
      process.stdout.write(`${JSON.stringify({ upstreams: running.upstreams, env: running.env })}\n`);
      closeOnSignals(() => running.close());
    });
}
