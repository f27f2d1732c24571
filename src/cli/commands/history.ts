import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { table } from '../output.js';
import type { AssetRecord } from '../../studio/api/index.js';

interface HistoryPage {
  items?: (AssetRecord & { createdAt: string })[];
  groups?: { sessionTitle: string | null; count: number; latestAt: string; items: AssetRecord[] }[];
  nextCursor: string | null;
}

const encode = (filename: string) => encodeURIComponent(filename);

export function registerHistory(program: Command): void {
  const history = program.command('history').description('List, delete and restore generated images');

  history
    .command('ls')
    .description('List generated images, newest first')
    .option('--limit <n>', 'how many', '20')
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--group-by <key>', 'session: group by session title')
    .action(async (options: { limit: string; cursor?: string; groupBy?: string }, command: Command) => {
      const { client, out } = commandContext(command);
      const query = new URLSearchParams({ limit: options.limit });
      if (options.cursor) query.set('cursor', options.cursor);
      if (options.groupBy) query.set('groupBy', options.groupBy);
      const page = await client.json<HistoryPage>('GET', `/api/history?${query}`, { timeoutMs: 15_000 });
      out.result(page, () => {
        const more = page.nextCursor ? `\n${out.color.dim(`more: svc history ls --cursor ${page.nextCursor}`)}` : '';
        if (page.groups) {
          return page.groups.map((group) => `${out.color.bold(group.sessionTitle ?? '(no session)')} ${out.color.dim(`${group.count} images`)}\n${group.items.map((item) => `  ${item.filename}`).join('\n')}`).join('\n') + more;
        }
        const items = page.items ?? [];
        if (!items.length) return 'No images yet.';
        return table([['FILE', 'CREATED', 'LANE/MODEL', 'PROMPT'], ...items.map((item) => [item.filename, item.createdAt, `${item.provider}/${item.model}`, item.prompt.length > 50 ? `${item.prompt.slice(0, 49)}…` : item.prompt])]) + more;
      });
    });

  history
    .command('rm')
    .argument('<filename>', 'the image to delete (restorable for the retention window)')
    .description('Delete an image from history (it can be restored for a while)')
    .action(async (filename: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ filename: string; restorableUntil?: string }>('DELETE', `/api/history/${encode(filename)}`, { timeoutMs: 15_000 });
      out.result(body, () => `${out.color.green('✓')} deleted ${body.filename}${body.restorableUntil ? out.color.dim(` (restorable until ${body.restorableUntil}: svc history restore ${body.filename})`) : ''}`);
    });

  history
    .command('restore')
    .argument('<filename>', 'a recently deleted image')
    .description('Bring back a recently deleted image')
    .action(async (filename: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ filename: string }>('POST', `/api/history/${encode(filename)}/restore`, { timeoutMs: 15_000 });
      out.result(body, () => `${out.color.green('✓')} restored ${body.filename}`);
    });
}
