import type { Command } from 'commander';
import type { QuotaBody, QuotaResult, QuotaWindow } from '../../studio/api/quota.js';
import { commandContext } from '../context.js';
import type { Colors } from '../output.js';

// `svc quota`: the usage bars of GET /api/quota, drawn in the terminal.

const BAR_WIDTH = 20;

/** "in 4h 12m" / "in 6d 3h" / "now". */
function untilText(iso: string | null, now = Date.now()): string {
  if (!iso) return '';
  const minutes = Math.round((Date.parse(iso) - now) / 60_000);
  if (Number.isNaN(minutes)) return '';
  if (minutes <= 0) return 'resets now';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  return `resets in ${days ? `${days}d ${hours}h` : hours ? `${hours}h ${minutes % 60}m` : `${minutes}m`}`;
}

function bar(window: QuotaWindow, color: Colors): string {
  const filled = Math.round((Math.min(100, Math.max(0, window.percent)) / 100) * BAR_WIDTH);
  const paint = window.percent >= 90 ? color.red : window.percent >= 70 ? color.yellow : color.green;
  return `${paint('█'.repeat(filled))}${color.dim('░'.repeat(BAR_WIDTH - filled))}`;
}

const dollars = (value: number) => `$${value.toFixed(2)}`;

function section(result: QuotaResult, color: Colors): string {
  const who = result.account ? [result.account.email, result.account.plan && `(${result.account.plan})`].filter(Boolean).join(' ') : '';
  if (!result.authenticated)
    return `${color.bold(result.provider)}  ${color.yellow('not signed in')}${result.reason ? color.dim(` — ${result.reason}`) : ''}`;
  if (result.error)
    return `${color.bold(result.provider)}  ${who} ${color.red('unavailable')}${result.reason ? color.dim(` — ${result.reason}`) : ''}`;
  const lines = [`${color.bold(result.provider)}  ${who}`];
  const labelWidth = Math.max(0, ...result.windows.map((window) => window.label.length));
  for (const window of result.windows) {
    const money =
      result.billing && window.label === 'monthly' ? `  ${dollars(result.billing.usedUsd)} of ${dollars(result.billing.limitUsd)}` : '';
    lines.push(
      `  ${window.label.padEnd(labelWidth)}  ${bar(window, color)} ${String(window.percent).padStart(3)}%  ${color.dim(untilText(window.resetsAt))}${money}`,
    );
  }
  if (!result.windows.length) lines.push(color.dim('  no meter to show'));
  return lines.join('\n');
}

export function registerQuota(program: Command): void {
  program
    .command('quota')
    .description('Usage bars of the chat OAuth session, alpha (with its billing) and epsilon')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<QuotaBody>('GET', '/api/quota', { timeoutMs: 30_000 });
      out.result(body, () => [body.oauth, body.alpha, body.epsilon].map((result) => section(result, out.color)).join('\n\n'));
    });
}
