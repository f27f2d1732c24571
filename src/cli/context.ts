import type { Command } from 'commander';
import { StudioClient, discoverServer } from './client.js';
import { createOutput, type Output } from './output.js';

export interface CommandContext {
  client: StudioClient;
  out: Output;
}

/** Builds the client and output from the program's global options (--server, --json). */
export function commandContext(command: Command): CommandContext {
  const options = command.optsWithGlobals<{ server?: string; json?: boolean }>();
  return { client: new StudioClient(discoverServer(options.server)), out: createOutput({ json: Boolean(options.json) }) };
}
