import type { Command } from 'commander';
import type { OauthStatusBody } from '../../studio/api/auth.js';
import { commandContext } from '../context.js';
import { localTime } from '../local-time.js';

// `svc oauth status`: the chat OAuth session the `oauth` lane uses (GET /api/oauth/status).

export function registerOauth(program: Command): void {
  const oauth = program.command('oauth').description('The chat OAuth session of the oauth lane');

  oauth
    .command('status')
    .description('Whether there is a chat session, its account and plan, its expiry, whether it needs a refresh')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<OauthStatusBody>('GET', '/api/oauth/status', { timeoutMs: 10_000 });
      const { color } = out;
      out.result(body, () => {
        if (!body.present)
          return `${color.yellow('○')} no chat session${body.reason ? `: ${body.reason}` : ''}\n${color.dim(`  file: ${body.file}; sign in with \`svc auth switch oauth\``)}`;
        const account = body.account;
        return [
          `${color.green('●')} chat session${account?.email ? ` as ${account.email}` : ''}${account?.plan ? ` (${account.plan})` : ''}`,
          color.dim(`  account ${account?.accountId ?? 'unknown'}; file ${body.file}`),
          `  token ${body.expiresAt ? `until ${localTime(body.expiresAt)}` : 'without an expiry'}; ${body.needsRefresh ? color.yellow('refreshes at the next call') : 'fresh'}${body.refreshable ? '' : color.yellow('; no refresh token: sign in again when it expires')}`,
          body.lastRefresh ? color.dim(`  last refreshed ${body.lastRefresh}`) : '',
        ]
          .filter(Boolean)
          .join('\n');
      });
    });
}
