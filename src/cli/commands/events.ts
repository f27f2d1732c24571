import type { Command } from 'commander';
import { HttpStatusError, connectEvents } from '../../common/events/client.js';
import type { ChannelEvent } from '../../common/events/types.js';
import { commandContext } from '../context.js';
import { CliError } from '../client.js';
import { EXIT_CODES } from '../../common/errors.js';

/** One line per event: its id, topic/event and the fields worth a glance (payloads such as b64 are left out). */
function describe(event: ChannelEvent): string {
  const { id, topic, event: name, b64: _b64, ...fields } = event;
  return `${id}  ${topic}/${name}  ${JSON.stringify(fields)}`;
}

export function registerEvents(program: Command): void {
  program
    .command('events')
    .description('Follow the studio event channel (reconnects and resumes by cursor); --json prints one event per line')
    .option('--since <eventId>', 'resume after this event id')
    .option('--request <requestId>', 'only the events of this job')
    .action(async (options: { since?: string; request?: string }, command: Command) => {
      const { client, out } = commandContext(command);
      const headers: Record<string, string> = client.token ? { authorization: `Bearer ${client.token}` } : {};
      let refusal: HttpStatusError | undefined;
      const connection = connectEvents(`${client.server.url}/api/events`, {
        lastEventId: options.since,
        headers,
        onEvent: (event) => {
          if (options.request && event.requestId !== options.request) return;
          process.stdout.write(out.json ? `${JSON.stringify(event)}\n` : `${describe(event)}\n`);
        },
        // Connection status goes to stderr in both modes, so stdout stays one event per line.
        onStatus: (status) => process.stderr.write(`${out.color.dim(`[${status}]`)}\n`),
        // A refusal (bad token, foreign Host) ends the stream for good; remember it for the exit code.
        onError: (error) => {
          if (error instanceof HttpStatusError && error.status !== 503) refusal = error;
        },
      });
      process.once('SIGINT', () => connection.close());
      await connection.closed;
      if (refusal) {
        const exit =
          refusal.status === 401 || refusal.status === 403
            ? EXIT_CODES.auth
            : refusal.status >= 500
              ? EXIT_CODES.upstream
              : EXIT_CODES.bad_request;
        throw new CliError(`The studio refused the event stream (HTTP ${refusal.status}).`, exit, `HTTP_${refusal.status}`);
      }
    });
}
