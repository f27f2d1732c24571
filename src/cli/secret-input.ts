import { EXIT_CODES } from '../common/errors.js';
import { CliError } from './client.js';

// Reading a secret: from a terminal without echo, or from stdin when asked
// (`--stdin`, for scripts and pipes). A secret is never a visible argument:
// argv shows in `ps` and in shell history.

/** Everything on stdin, trimmed, within `maxBytes`. */
export async function readStdin(maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new CliError(`stdin holds more than ${maxBytes} bytes.`, EXIT_CODES.usage, 'USAGE');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** Asks on the terminal (the question on stderr) and reads a line without echoing it. Ctrl-C cancels. */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw new CliError('stdin is not a terminal: pipe the key in with --stdin.', EXIT_CODES.usage, 'USAGE');
  // Echo goes off before the question shows: a key typed or pasted the moment it appears is never echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          finish();
          return resolve(value.trim());
        }
        if (char === '\u0003') {
          finish();
          return reject(new CliError('Cancelled.', 130, 'INTERRUPTED'));
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    stdin.on('data', onData);
  });
}
