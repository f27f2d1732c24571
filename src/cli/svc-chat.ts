import { Command, CommanderError } from 'commander';
import { EXIT_CODES } from '../common/errors.js';
import { closeOnSignals } from '../common/listen.js';
import { CHAT_ENV } from '../chat/config.js';
import { CHAT_LIMITS } from '../chat/limits.js';
import { MANAGER_ENV, parsePortRange } from '../manager/config.js';
import { MANAGER_LIMITS } from '../manager/limits.js';
import { workerOrigin } from '../manager/worker-url.js';
import { VERSION } from '../common/version.js';

class UsageError extends Error {}

function parsePort(value: string | undefined, from: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${from} must be a port number (0-65535), got "${value}".`);
  return port;
}

interface ManagerServeOptions {
  port?: string;
  host: string;
  home?: string;
  worker?: string[];
  discover?: string;
  allowOrigin?: string[];
  log?: boolean;
  json?: boolean;
}

interface ServeOptions {
  port?: string;
  host: string;
  demo?: boolean;
  home?: string;
  workdir?: string;
  allowOrigin?: string[];
  log?: boolean;
  json?: boolean;
}

export function buildProgram(): Command {
  const program = new Command('svc-chat')
    .description('Agent chat server: runs chat messages through agent command-line programs and streams their output')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  program
    .command('serve')
    .description('Run the chat server (binds 127.0.0.1; the next free port if the preferred one is taken)')
    .option('-p, --port <port>', `preferred port (env ${CHAT_ENV.port}, default ${CHAT_LIMITS.defaultPort}; 0 = any free port)`)
    .option('--host <address>', `address to bind; anything but loopback needs ${CHAT_ENV.token}`, '127.0.0.1')
    .option('--demo', 'use the fake agent programs of src/sim/agents (offline, no agent installed)')
    .option('--home <dir>', `state directory (env ${CHAT_ENV.home}, default ~/.svc-chat)`)
    .option('--workdir <dir>', `working directory of agent runs (env ${CHAT_ENV.workDir}, default the current directory)`)
    .option('--allow-origin <origin...>', 'extra origins allowed in Host/Origin checks')
    .option('--log', 'log every request')
    .option('--json', 'print the start line as JSON')
    .exitOverride()
    .action(async (options: ServeOptions) => {
      const port = parsePort(options.port, '--port') ?? parsePort(process.env[CHAT_ENV.port], CHAT_ENV.port) ?? CHAT_LIMITS.defaultPort;
      const { startChatServer } = await import('../chat/server.js');
      const server = await startChatServer({
        port,
        host: options.host,
        demo: options.demo,
        home: options.home,
        workDir: options.workdir,
        allowedOrigins: options.allowOrigin,
        logger: options.log,
      });
      const info = { url: server.url, port: server.port, pid: process.pid, demo: server.config.demo, home: server.config.home };
      if (options.json) process.stdout.write(`${JSON.stringify(info)}\n`);
      else {
        const moved = server.port !== port && port !== 0 ? ` (port ${port} was taken)` : '';
        process.stdout.write(
          `svc-chat ${VERSION} listening on ${server.url}${moved}${server.config.demo ? ' — demo mode, fake agent programs' : ''}\n`,
        );
      }
      closeOnSignals(() => server.close());
    });
  const manager = program.command('manager').description('The manager: follows chat-server workers and serves their dashboard');
  manager
    .command('serve')
    .description('Run the manager (binds 127.0.0.1; the next free port if the preferred one is taken)')
    .option('-p, --port <port>', `preferred port (env ${MANAGER_ENV.port}, default ${MANAGER_LIMITS.defaultPort}; 0 = any free port)`)
    .option('--host <address>', `address to bind; anything but loopback needs ${MANAGER_ENV.token}`, '127.0.0.1')
    .option('--home <dir>', `state directory (env ${MANAGER_ENV.home}, default ~/.svc-chat-manager)`)
    .option('--worker <url...>', `chat servers to follow (env ${MANAGER_ENV.workers}, comma-separated); loopback http only`)
    .option(
      '--discover <ports>',
      `follow every chat server found on 127.0.0.1 in this port range, e.g. 3344-3363 (env ${MANAGER_ENV.discover})`,
    )
    .option('--allow-origin <origin...>', 'extra origins allowed in Host/Origin checks')
    .option('--log', 'log every request')
    .option('--json', 'print the start line as JSON')
    .exitOverride()
    .action(async (options: ManagerServeOptions) => {
      const port =
        parsePort(options.port, '--port') ?? parsePort(process.env[MANAGER_ENV.port], MANAGER_ENV.port) ?? MANAGER_LIMITS.defaultPort;
      if (options.discover) parseDiscover(options.discover);
      for (const url of options.worker ?? []) checkWorkerUrl(url);
      const { startManagerServer } = await import('../manager/server.js');
      const server = await startManagerServer({
        port,
        host: options.host,
        home: options.home,
        workers: options.worker,
        discover: options.discover,
        allowedOrigins: options.allowOrigin,
        logger: options.log,
      });
      const info = { url: server.url, port: server.port, pid: process.pid, home: server.config.home };
      if (options.json) process.stdout.write(`${JSON.stringify(info)}\n`);
      else {
        const moved = server.port !== port && port !== 0 ? ` (port ${port} was taken)` : '';
        process.stdout.write(`svc-chat manager ${VERSION} listening on ${server.url}${moved}\n`);
      }
      closeOnSignals(() => server.close(), 20_000);
    });
  return program;
}

/** A worker URL the manager would refuse is a usage error, named before anything starts. */
function checkWorkerUrl(url: string): void {
  try {
    workerOrigin(url);
  } catch (error) {
    throw new UsageError(`--worker: ${(error as Error).message}`);
  }
}

/** A bad discovery range is a usage error, named before anything starts. */
function parseDiscover(text: string): void {
  try {
    parsePortRange(text);
  } catch (error) {
    throw new UsageError(`--discover: ${(error as Error).message}`);
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    if (error instanceof UsageError) {
      process.stderr.write(`svc-chat: ${error.message}\n`);
      return EXIT_CODES.usage;
    }
    process.stderr.write(`svc-chat: ${(error as Error)?.message ?? String(error)}\n`);
    return EXIT_CODES.internal;
  }
}

// Set the exit code and let the event loop drain: `serve` keeps running on its open server.
main(process.argv).then((code) => {
  process.exitCode = code;
});
