import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import type { AlphaLogoutBody, AlphaSessionBody, AlphaStatusBody } from '../../studio/api/alpha.js';
import { CliError, type StudioClient } from '../client.js';
import { commandContext } from '../context.js';
import type { Output } from '../output.js';
import { signInThroughStudio } from './auth.js';
import { localTime } from '../local-time.js';

// `svc alpha login | status | logout`: the alpha OAuth session. With a studio
// running, through it (its account switch for the device login, so the CLI
// and the web UI share one; its session routes otherwise): a demo studio then
// signs in to its own simulator and writes only its own demo file. With no
// studio reachable, the same flow runs in this process against the
// configured issuer and session file.

const unreachable = (error: unknown): boolean => error instanceof CliError && error.code === 'UNREACHABLE';

function showCode(out: Output, userCode: string, verificationUrl: string): void {
  // The code goes to stderr, so --json keeps stdout to the one result document.
  process.stderr.write(
    `To sign in to alpha, open ${verificationUrl}\nand enter the code ${out.color.bold(userCode)} (if the page does not show it already).\nWaiting for approval...\n`,
  );
}

async function loginThroughStudio(client: StudioClient, out: Output): Promise<{ email?: string; via: 'studio' }> {
  const final = await signInThroughStudio(client, out, 'alpha');
  return { ...(final.email ? { email: final.email } : {}), via: 'studio' };
}

/** No studio: the device flow in this process, against the configured issuer, into the configured file. */
async function loginHere(out: Output): Promise<{ email?: string; via: 'here'; file: string }> {
  const { inProcessTarget } = await import('./alpha-local.js');
  const { LANES } = await import('../../studio/catalog/registry.js');
  const target = inProcessTarget(process.env);
  let login;
  try {
    const account = LANES.alpha.sessionAccount;
    if (!account) throw new Error('the alpha lane has no session sign-in');
    login = await account.signInAt(target, {});
  } catch (error) {
    throw new CliError(
      `Could not start the alpha sign-in at ${target.issuerUrl}: ${(error as Error).message}`,
      EXIT_CODES.upstream,
      'LOGIN_FAILED',
    );
  }
  showCode(out, login.authorization.userCode, login.authorization.verificationUrl);
  try {
    const session = await login.completion;
    return { email: session.email, via: 'here', file: target.file };
  } catch (error) {
    const outcome = (error as { outcome?: string }).outcome;
    throw new CliError(
      `The sign-in ${outcome === 'denied' ? 'was declined' : outcome === 'expired' ? 'code expired before it was approved' : `failed: ${(error as Error).message}`}.`,
      EXIT_CODES.auth,
      outcome === 'expired' ? 'LOGIN_EXPIRED' : 'LOGIN_FAILED',
    );
  }
}

export function registerAlpha(program: Command): void {
  const alpha = program.command('alpha').description('The alpha OAuth session: sign in with a device code, show it, sign out');

  alpha
    .command('login')
    .description('Sign in to alpha with a device code (prints the code and the page, waits for approval, saves the session)')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      let result: { email?: string; via: 'studio' | 'here'; file?: string };
      try {
        result = await loginThroughStudio(client, out);
      } catch (error) {
        if (!unreachable(error)) throw error;
        result = await loginHere(out);
      }
      out.result(
        { auth: 'oauth', ...result },
        () => `${out.color.green('✓')} signed in to alpha${result.email ? ` as ${result.email}` : ''}`,
      );
    });

  alpha
    .command('status')
    .option('--probe', 'also ask the vendor whether the session works (GET /api/alpha/status)')
    .description('Show the alpha session: signed in or not, as whom, until when, refreshable')
    .action(async (options: { probe?: boolean }, command: Command) => {
      const { client, out } = commandContext(command);
      const [session, probe] = await Promise.all([
        client.json<AlphaSessionBody>('GET', '/api/alpha/session', { timeoutMs: 10_000 }),
        options.probe ? client.json<AlphaStatusBody>('GET', '/api/alpha/status', { timeoutMs: 15_000 }) : undefined,
      ]);
      const probed = probe
        ? probe.status === 'ready' || probe.status === 'no_image_model'
          ? { probe: probe.status, imageModels: (probe.models ?? []).filter((id) => id.startsWith('alpha-image')) }
          : { probe: probe.status, probeError: probe.reason ?? probe.status }
        : {};
      out.result({ ...session, ...probed }, () => {
        const head =
          session.auth === 'oauth'
            ? `${out.color.green('●')} alpha: signed in${session.email ? ` as ${session.email}` : ''}${session.expiresAt ? `; token until ${localTime(session.expiresAt)}` : ''}${session.refreshable ? ' (refreshable)' : ''}`
            : `${out.color.yellow('○')} alpha: not signed in${session.problem ? ` (${session.problem})` : ''}: run \`svc alpha login\``;
        if (!probe) return head;
        return `${head}\n  probe: ${probe.status}${probe.reason ? ` (${probe.reason})` : ''}${probe.models ? `; image models: ${(probe.models ?? []).filter((id) => id.startsWith('alpha-image')).join(', ') || 'none'}` : ''}`;
      });
    });

  alpha
    .command('logout')
    .description('Sign out of alpha: delete the session file')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      let removed: boolean;
      try {
        removed = (await client.json<AlphaLogoutBody>('DELETE', '/api/alpha/session', { timeoutMs: 10_000 })).removed;
      } catch (error) {
        if (!unreachable(error)) throw error;
        const { inProcessTarget } = await import('./alpha-local.js');
        const { LANES } = await import('../../studio/catalog/registry.js');
        removed = LANES.alpha.sessionAccount?.remove(inProcessTarget(process.env).file) ?? false;
      }
      out.result({ removed, auth: 'none' }, () =>
        removed ? `${out.color.green('✓')} signed out of alpha` : 'alpha: there was no session',
      );
    });
}
