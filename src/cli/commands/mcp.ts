import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import { CliError, StudioClient, discoverServer } from '../client.js';

// `svc mcp serve`: the studio as an MCP server over stdio (issue 31), a bridge
// to the running studio's /mcp. The studio is found as every command finds it
// (--server, SVC_SERVER, server.json of SVC_HOME, the default port); when none
// answers and none was named, `svc serve` is started detached (it outlives the
// bridge, like a studio started by hand) and awaited.

/** How long a studio started here has to answer /api/health. */
const START_TIMEOUT_MS = 30_000;
const HEALTH_TIMEOUT_MS = 3_000;

const log = (line: string) => process.stderr.write(`${line}\n`);

async function answers(client: StudioClient): Promise<boolean> {
  try {
    await client.json('GET', '/api/health', { timeoutMs: HEALTH_TIMEOUT_MS });
    return true;
  } catch (error) {
    // A studio that answers but refuses (a token it needs) is running: the bridge says why on each request.
    return error instanceof CliError && error.code !== 'UNREACHABLE' && error.code !== 'CLIENT_TIMEOUT';
  }
}

/** Starts `svc serve` detached (this program, the same runtime flags) and waits until a studio answers where clients look. */
async function startStudio(options: { demo?: boolean }, token: string | undefined): Promise<StudioClient> {
  const args = [...process.execArgv, process.argv[1], 'serve', ...(options.demo ? ['--demo'] : [])];
  log(`svc mcp serve: no studio answers; starting one (svc serve${options.demo ? ' --demo' : ''})`);
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env: process.env });
  child.unref();
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    // The new studio advertises itself in server.json (or takes the default port).
    const client = new StudioClient(discoverServer(undefined), token);
    if (await answers(client)) {
      log(`svc mcp serve: started the studio at ${client.server.url} (pid ${child.pid})`);
      return client;
    }
    if (exited !== null)
      throw new CliError(
        `svc serve exited (code ${exited}) before answering; run it yourself to see why.`,
        EXIT_CODES.unreachable,
        'UNREACHABLE',
      );
    await sleep(200);
  }
  throw new CliError(`The studio started here did not answer within ${START_TIMEOUT_MS / 1000} s.`, EXIT_CODES.unreachable, 'UNREACHABLE');
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('The studio as an MCP server');
  mcp
    .command('serve')
    .description("Serve the studio as an MCP server over stdio (a bridge to the running studio's /mcp; starts `svc serve` if none runs)")
    .option('--no-start', 'fail instead of starting a studio when none answers')
    .option('--demo', 'a studio started here runs in demo mode (simulated upstreams)')
    .action(async (options: { start: boolean; demo?: boolean }, command: Command) => {
      const flag = command.optsWithGlobals<{ server?: string }>().server;
      const token = process.env.SVC_TOKEN || undefined;
      let client = new StudioClient(discoverServer(flag), token);
      if (!(await answers(client))) {
        // A studio named by --server or SVC_SERVER is that one: another started elsewhere would not be it.
        if (!options.start || client.server.source === 'flag' || client.server.source === 'env')
          throw client.transportError(new Error('unreachable'));
        client = await startStudio(options, token);
      }
      // The bridge (and the MCP SDK it runs on) loads here, not with every svc command.
      const { runMcpBridge } = await import('../mcp-bridge.js');
      await runMcpBridge({ url: client.server.url, token }, log);
    });
}
