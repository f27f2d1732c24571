import { Command, CommanderError } from 'commander';
import { EXIT_CODES } from '../common/errors.js';
import { VERSION } from '../common/version.js';
import { registerAlpha } from './commands/alpha.js';
import { registerAuth } from './commands/auth.js';
import { registerKeys } from './commands/keys.js';
import { registerOauth } from './commands/oauth.js';
import { registerQuota } from './commands/quota.js';
import { registerStorage } from './commands/storage.js';
import { CliError } from './client.js';
import { registerDefaults } from './commands/defaults.js';
import { registerEvents } from './commands/events.js';
import { registerFlow } from './commands/flow.js';
import { registerGenerate } from './commands/generate.js';
import { registerHistory } from './commands/history.js';
import { registerInflight } from './commands/inflight.js';
import { registerMcp } from './commands/mcp.js';
import { registerModels } from './commands/models.js';
import { registerNode } from './commands/node.js';
import { registerServe } from './commands/serve.js';
import { registerSessions } from './commands/sessions.js';
import { registerSim } from './commands/sim.js';
import { registerStatus } from './commands/status.js';
import { registerTrace } from './commands/trace.js';
import { registerVideo } from './commands/video.js';

/** Every command family of `svc`; each registers its commands on the program. */
const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerServe,
  registerStatus,
  registerModels,
  registerDefaults,
  registerGenerate,
  registerVideo,
  registerNode,
  registerSessions,
  registerHistory,
  registerInflight,
  registerEvents,
  registerSim,
  registerTrace,
  registerFlow,
  registerAlpha,
  registerKeys,
  registerQuota,
  registerAuth,
  registerOauth,
  registerStorage,
  registerMcp,
];

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Local image and video generation studio: a thin shell over its HTTP API')
    .version(VERSION)
    .option('--server <url>', 'studio URL (else SVC_SERVER, then server.json, then http://127.0.0.1:3333)')
    .option('--json', 'print one JSON document')
    .showHelpAfterError()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  program.addHelpText(
    'after',
    `\nExit codes: 0 ok, ${EXIT_CODES.usage} usage, ${EXIT_CODES.unreachable} server unreachable, ${EXIT_CODES.auth} auth/credential, ${EXIT_CODES.bad_request} bad request, ${EXIT_CODES.upstream} upstream failure, ${EXIT_CODES.timeout} timeout, ${EXIT_CODES.internal} internal.`,
  );
  // Subcommands inherit exitOverride so usage errors come back here.
  program.commands.forEach(function inherit(command: Command) {
    command.exitOverride();
    command.commands.forEach(inherit);
  });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  // A reader that stops early (`svc --help | head`) is not a failure: stop quietly, as Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT_CODES.ok);
      throw error;
    });
  }
  const program = buildProgram();
  const json = argv.includes('--json');
  // With --json a usage error is one JSON document on stdout too: commander's own text is held back.
  if (json) {
    program.configureOutput({ writeErr: () => undefined, outputError: () => undefined });
    program.commands.forEach(function quiet(command: Command) {
      command.configureOutput({ writeErr: () => undefined, outputError: () => undefined });
      command.commands.forEach(quiet);
    });
  }
  try {
    await program.parseAsync(argv);
    // A command that printed its result and still failed in part (multimode: some slots) set the code.
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with exitCode 0; anything else is a usage error.
      if (error.exitCode === 0) return EXIT_CODES.ok;
      if (json)
        process.stdout.write(
          `${JSON.stringify({ error: { code: 'USAGE', message: error.message.replace(/^error: /, ''), details: { commander: error.code } } }, null, 2)}\n`,
        );
      return EXIT_CODES.usage;
    }
    if (error instanceof CliError) {
      if (json)
        process.stdout.write(
          `${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }, null, 2)}\n`,
        );
      else process.stderr.write(`svc: ${error.message}${error.code ? ` (${error.code})` : ''}\n`);
      return error.exitCode;
    }
    // A failure this program did not foresee: said in one line (SVC_DEBUG=1 shows the stack).
    process.stderr.write(
      `svc: ${process.env.SVC_DEBUG ? ((error as Error)?.stack ?? String(error)) : `internal error: ${(error as Error)?.message ?? String(error)}`}\n`,
    );
    return EXIT_CODES.internal;
  }
}

// Set the exit code and let the event loop drain: `serve` keeps running on its open server.
main(process.argv).then((code) => {
  process.exitCode = code;
});
