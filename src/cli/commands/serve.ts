import type { Command } from 'commander';
import { closeOnSignals } from '../../common/listen.js';
import { EXIT_CODES } from '../../common/errors.js';
import { CliError } from '../client.js';
import { DEFAULT_PORT } from '../../studio/constants.js';
import { StateDirLocked } from '../../studio/state-lock.js';

function parsePort(value: string | undefined, from: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`${from} must be a port number (0-65535), got "${value}".`, EXIT_CODES.usage, 'USAGE');
  return port;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the studio server (binds 127.0.0.1; the next free port if the preferred one is taken)')
    .option('-p, --port <port>', `preferred port (env SVC_PORT, default ${DEFAULT_PORT})`)
    .option('--host <address>', 'address to bind; anything but loopback needs SVC_TOKEN', '127.0.0.1')
    .option('--demo', 'start the upstream simulators (on a thread of their own) and point every lane at them (offline, no keys)')
    .option('--allow-origin <origin...>', 'extra origins allowed in Host/Origin checks, e.g. http://studio.lan:3333')
    .option('--log', 'log every request')
    .option('--shared-home', 'run beside another studio on the same state dir (SVC_HOME); else a second studio there refuses to start')
    .action(
      async (
        options: { port?: string; host: string; demo?: boolean; allowOrigin?: string[]; log?: boolean; sharedHome?: boolean },
        command: Command,
      ) => {
        const json = Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
        const port = parsePort(options.port, '--port') ?? parsePort(process.env.SVC_PORT, 'SVC_PORT') ?? DEFAULT_PORT;
        const { startStudio } = await import('../../studio/main.js');
        const demo = options.demo ? await (await import('../../demo/demo.js')).startDemoThread(process.env) : undefined;
        let studio;
        try {
          studio = await startStudio({
            port,
            host: options.host,
            token: process.env.SVC_TOKEN || undefined,
            allowedOrigins: options.allowOrigin,
            demo: demo?.options,
            logger: options.log,
            onClose: demo?.close,
            sharedHome: options.sharedHome,
          });
        } catch (error) {
          await demo?.close();
          if (error instanceof StateDirLocked)
            throw new CliError(error.message, EXIT_CODES.usage, 'STATE_DIR_LOCKED', {
              lockFile: error.lockFile,
              holder: { pid: error.holder.pid, url: error.holder.url, startedAt: error.holder.startedAt },
            });
          throw new CliError((error as Error).message, EXIT_CODES.internal, 'SERVE_FAILED');
        }
        const info = {
          url: studio.url,
          port: studio.port,
          pid: process.pid,
          demo: Boolean(demo),
          descriptor: studio.ctx.paths.descriptorFile,
        };
        if (json) process.stdout.write(`${JSON.stringify(info)}\n`);
        else {
          const moved = studio.port !== port && port !== 0 ? ` (port ${port} was taken)` : '';
          process.stdout.write(
            `studio ${studio.ctx.version} listening on ${studio.url}${moved}${demo ? ' — demo mode, simulated upstreams' : ''}\n`,
          );
        }
        closeOnSignals(() => studio.close());
      },
    );
}
