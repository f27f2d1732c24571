import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import { exitCodeFor, isErrorCode } from '../../studio/errors.js';
import { SWITCH_PROVIDERS, type SwitchProvider, type SwitchStarted, type SwitchStatus } from '../../studio/api/auth.js';
import { CliError, type StudioClient } from '../client.js';
import { commandContext } from '../context.js';
import type { Output } from '../output.js';
import { startSpinner } from '../spinner.js';

// `svc auth switch <alpha|oauth>`: signs an account in with a device code
// through the studio (POST /api/auth/switch): prints the page and the code,
// waits with a spinner while the studio polls the issuer, and says how it
// ended. Ctrl-C cancels the sign-in on the studio too.

/** How often the CLI asks the studio how a sign-in goes (the contract's 3 s; the studio itself polls the issuer). */
const STATUS_POLL_MS = 3000;

const expired = () =>
  new CliError('The sign-in code expired before it was approved; run the command again.', EXIT_CODES.auth, 'LOGIN_EXPIRED');

async function follow(client: StudioClient, started: SwitchStarted, onStatus: (status: SwitchStatus) => void): Promise<SwitchStatus> {
  const path = `/api/auth/switch/${encodeURIComponent(started.sessionId)}`;
  for (;;) {
    await sleep(STATUS_POLL_MS);
    let status: SwitchStatus;
    try {
      status = await client.json<SwitchStatus>('GET', path, { timeoutMs: 10_000 });
    } catch (error) {
      // Forgotten: it ended long enough ago (or the studio restarted).
      if (error instanceof CliError && error.code === 'AUTH_SWITCH_NOT_FOUND') throw expired();
      throw error;
    }
    onStatus(status);
    if (status.status !== 'pending') return status;
  }
}

/**
 * A device-code sign-in through the studio (POST /api/auth/switch): shows the page and the code on
 * stderr, waits with a spinner while the studio polls the issuer (Ctrl-C cancels it there too) and
 * answers the completed status; an expired or failed sign-in ends in a CliError with its code.
 */
export async function signInThroughStudio(client: StudioClient, out: Output, provider: SwitchProvider): Promise<SwitchStatus> {
  const started = await client.json<SwitchStarted>('POST', '/api/auth/switch', { body: { provider, flow: 'device' }, timeoutMs: 30_000 });
  // On stderr, so --json keeps stdout to the one result document.
  process.stderr.write(
    `To sign in ${provider}, open ${started.verificationUrl}\nand enter the code ${out.color.bold(started.userCode)} (if the page does not show it already).\n`,
  );
  const spinner = startSpinner('waiting for approval', { enabled: !out.json && Boolean(process.stderr.isTTY) });
  const onInterrupt = () => {
    spinner.stop();
    void client
      .fetch('DELETE', `/api/auth/switch/${encodeURIComponent(started.sessionId)}`, { timeoutMs: 2000 })
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onInterrupt);
  let final: SwitchStatus;
  try {
    final = await follow(client, started, (status) =>
      spinner.text(`waiting for approval (code ${started.userCode}, expires ${new Date(status.expiresAt).toLocaleTimeString()})`),
    );
  } finally {
    spinner.stop();
    process.off('SIGINT', onInterrupt);
  }
  if (final.status === 'expired') throw expired();
  if (final.status === 'error') {
    const code = final.error?.code;
    throw new CliError(
      `The sign-in failed: ${final.error?.message ?? 'no reason given'}`,
      code && isErrorCode(code) ? exitCodeFor(code) : EXIT_CODES.auth,
      code ?? 'LOGIN_FAILED',
    );
  }
  return final;
}

export function registerAuth(program: Command): void {
  const auth = program.command('auth').description('Account switching with a device code');

  auth
    .command('switch')
    .argument('<account>', `${SWITCH_PROVIDERS.join(' or ')} (the chat OAuth account)`)
    .description('Sign an account in: shows a page and a code, waits for approval, then the lane uses the new account')
    .action(async (account: string, _options, command: Command) => {
      if (!(SWITCH_PROVIDERS as readonly string[]).includes(account))
        throw new CliError(`Unknown account "${account}": use ${SWITCH_PROVIDERS.join(' or ')}.`, EXIT_CODES.usage, 'USAGE');
      const { client, out } = commandContext(command);
      const final = await signInThroughStudio(client, out, account as SwitchProvider);
      out.result(
        final,
        () =>
          `${out.color.green('✓')} ${account} signed in${final.email ? ` as ${final.email}` : ''}; the lane uses this account from its next call`,
      );
    });
}
