import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import { KEY_LIMITS, MANAGED_KEY_NAMESPACES, type KeyChangeBody, type KeyStatus, type KeysStatusBody } from '../../studio/api/keys.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';
import { table, type Colors } from '../output.js';
import { promptHidden, readStdin } from '../secret-input.js';
import { localTime } from '../local-time.js';

// `svc keys status | set | rm`: the studio's keys (GET/PUT/DELETE /api/keys).
// A key is read from the terminal without echo, or from stdin with --stdin;
// never from an argument. The service account is read from a file.

/** A save waits for the vendor's check (the server gives it 10 s). */
const SAVE_TIMEOUT_MS = 30_000;

function verdict(status: KeyStatus, color: Colors): string {
  if (status.valid === 'valid') return color.green('valid');
  if (status.valid === 'invalid') return color.red('invalid');
  return status.set ? color.yellow('unchecked') : color.dim('unchecked');
}

function row(name: string, status: KeyStatus, color: Colors): string[] {
  const key = status.clientEmail ? `${status.clientEmail} (${status.projectId})` : (status.masked ?? '-');
  return [
    name,
    status.set ? 'yes' : 'no',
    status.source,
    key,
    verdict(status, color),
    status.checkedAt ? localTime(status.checkedAt) : '-',
    color.dim(status.valid === 'valid' ? '' : (status.reason ?? '')),
  ];
}

function render(body: KeysStatusBody, color: Colors): string {
  const head = ['KEY', 'SET', 'SOURCE', 'VALUE', 'VALID', 'CHECKED', ''];
  const managed = MANAGED_KEY_NAMESPACES.map((name) => row(name, body[name as 'omni' | 'alpha' | 'beta' | 'cloud'], color));
  const others = Object.entries(body.otherKeys).map(([name, status]) => row(name, status, color));
  const mode = `beta-api credential: ${body.betaAuthMode.effective ?? 'none'}${body.betaAuthMode.saved ? ` (saved mode: ${body.betaAuthMode.saved})` : ''}`;
  return `${table([head, ...managed])}\n\nOther lanes (set with their variable or config.json):\n${table([head, ...others])}\n\n${mode}`;
}

function namespaceOf(name: string): string {
  if (!(MANAGED_KEY_NAMESPACES as readonly string[]).includes(name))
    throw new CliError(`Unknown key "${name}": use one of ${MANAGED_KEY_NAMESPACES.join(', ')}.`, EXIT_CODES.usage, 'USAGE');
  return name;
}

/** The service account's key file, bounded like the server bounds it. */
async function readKeyFile(path: string): Promise<string> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new CliError(`Cannot read ${path}.`, EXIT_CODES.usage, 'USAGE');
  }
  if (size > KEY_LIMITS.serviceAccountMaxBytes)
    throw new CliError(
      `${path} is ${size} bytes; a service-account key file is at most ${KEY_LIMITS.serviceAccountMaxBytes}.`,
      EXIT_CODES.usage,
      'USAGE',
    );
  return (await readFile(path, 'utf8')).trim();
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('API keys and the service account: status with live checks, save, remove');

  keys
    .command('status')
    .option('--verify', 'check every key with its vendor now')
    .description('Each key masked, where it comes from, and whether its vendor takes it')
    .action(async (options: { verify?: boolean }, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<KeysStatusBody>('GET', `/api/keys/status${options.verify ? '?verify=1' : ''}`, { timeoutMs: 30_000 });
      out.result(body, () => render(body, out.color));
    });

  keys
    .command('set')
    .argument('<key>', `one of ${MANAGED_KEY_NAMESPACES.join(', ')}`)
    .argument('[file]', 'cloud: the service account key file (JSON)')
    .option('--stdin', 'read the key (or the key file) from stdin instead of prompting')
    .description('Save a key after its vendor accepts it (prompted without echo; never an argument)')
    .action(async (name: string, file: string | undefined, options: { stdin?: boolean }, command: Command) => {
      const namespace = namespaceOf(name);
      const { client, out } = commandContext(command);
      let body: { apiKey: string } | { serviceAccountJson: string };
      if (namespace === 'cloud') {
        if (!file && !options.stdin)
          throw new CliError('svc keys set cloud needs the key file: svc keys set cloud <file> (or --stdin).', EXIT_CODES.usage, 'USAGE');
        body = { serviceAccountJson: file ? await readKeyFile(file) : await readStdin(KEY_LIMITS.serviceAccountMaxBytes) };
      } else {
        if (file)
          throw new CliError(
            `A key is never an argument (it would show in ps and the shell history): run svc keys set ${namespace} and type it, or pipe it with --stdin.`,
            EXIT_CODES.usage,
            'USAGE',
          );
        const apiKey = options.stdin
          ? await readStdin(KEY_LIMITS.apiKeyMaxChars * 4)
          : await promptHidden(`${namespace} key (not shown): `);
        if (!apiKey) throw new CliError('No key given.', EXIT_CODES.usage, 'USAGE');
        body = { apiKey };
      }
      out.note(`Checking the ${namespace} key with its vendor…`);
      const saved = await client.json<KeyChangeBody>('PUT', `/api/keys/${namespace}`, { body, timeoutMs: SAVE_TIMEOUT_MS });
      const shown = saved.clientEmail ? `${saved.clientEmail}, project ${saved.projectId}` : saved.masked;
      out.result(saved, () => `${out.color.green('✓')} ${namespace} saved (${shown}): the vendor accepted it; in force for the next job`);
    });

  keys
    .command('rm')
    .argument('<key>', `one of ${MANAGED_KEY_NAMESPACES.join(', ')}`)
    .description('Remove a saved key (one from the environment cannot be removed here)')
    .action(async (name: string, _options, command: Command) => {
      const namespace = namespaceOf(name);
      const { client, out } = commandContext(command);
      const removed = await client.json<KeyChangeBody>('DELETE', `/api/keys/${namespace}`, { timeoutMs: 30_000 });
      out.result(removed, () =>
        removed.removed
          ? `${out.color.green('✓')} ${namespace} removed${removed.set ? `; now in force: the ${removed.source} one (${removed.masked})` : ''}`
          : `${namespace}: no saved key${removed.set ? ` (the one in force comes from ${removed.source})` : ''}`,
      );
    });
}
