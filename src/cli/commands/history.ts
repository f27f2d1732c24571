import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { table } from '../output.js';
import type { AssetRecord } from '../../studio/api/index.js';
import { localTime } from '../local-time.js';
import { plural } from '../../common/issue-message.js';

interface HistoryPage {
  items?: (AssetRecord & { createdAt: string })[];
  groups?: { sessionTitle: string | null; sessionDeleted?: boolean; count: number; latestAt: string; items: AssetRecord[] }[];
  nextCursor: string | null;
}

const encode = (filename: string) => encodeURIComponent(filename);

const RELATIVE_UNITS_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `--since`/`--until`: an ISO date or date-time as the server takes it, or a time ago (`30m`, `12h`, `7d`, `2w`). */
export function instantArgument(value: string, now = Date.now()): string {
  const relative = /^(\d{1,6})([mhdw])$/.exec(value.trim());
  if (relative) return new Date(now - Number(relative[1]) * RELATIVE_UNITS_MS[relative[2] as keyof typeof RELATIVE_UNITS_MS]).toISOString();
  return value.trim();
}

interface ListOptions {
  limit: string;
  cursor?: string;
  groupBy?: string;
  search?: string;
  lane?: string;
  model?: string;
  kind?: string;
  session?: string;
  sessionId?: string;
  since?: string;
  until?: string;
}

/** Each query parameter of the listing and the flag that sets it. */
const FLAG_OF = {
  limit: '--limit',
  groupBy: '--group-by',
  q: '--search',
  provider: '--lane',
  model: '--model',
  kind: '--kind',
  session: '--session',
  sessionId: '--session-id',
  since: '--since',
  until: '--until',
} as const;

/** The listing's query (a time ago in --since/--until becomes the instant it means now). */
function listQuery(options: ListOptions): URLSearchParams {
  const values: Record<keyof typeof FLAG_OF | 'cursor', string | undefined> = {
    limit: options.limit,
    cursor: options.cursor,
    groupBy: options.groupBy,
    q: options.search,
    provider: options.lane,
    model: options.model,
    kind: options.kind,
    session: options.session,
    sessionId: options.sessionId,
    since: options.since && instantArgument(options.since),
    until: options.until && instantArgument(options.until),
  };
  return new URLSearchParams(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The command that shows the next page: the same query (instants fixed) and the cursor. */
function nextPageCommand(query: URLSearchParams, cursor: string): string {
  const flags = [...query].flatMap(([name, value]) => (name in FLAG_OF ? [FLAG_OF[name as keyof typeof FLAG_OF], quoted(value)] : []));
  return ['svc history ls', ...flags, '--cursor', quoted(cursor)].join(' ');
}

const quoted = (value: string) => (/^[\w./:+-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`);

export function registerHistory(program: Command): void {
  const history = program.command('history').description('List, search, delete and restore generated images');

  history
    .command('ls')
    .description('List generated images, newest first; --search and the filters combine')
    .option('--limit <n>', 'how many', '20')
    .option('--cursor <cursor>', 'continue from a previous page (with the same filters)')
    .option('--group-by <key>', 'session: group by session')
    .option('--search <text>', 'words of the prompt or revised prompt (each must appear; a word also finds longer words it begins)')
    .option('--lane <lane>', "one lane's images")
    .option('--model <model>', "one model's images")
    .option('--kind <kind>', 'image, video or vector-svg; or what made it: generate, edit, multimode, node, import')
    .option('--session <title>', 'the images showing this session title')
    .option('--session-id <id>', "one graph session's images")
    .option('--since <when>', 'made at or after: an ISO date or time, or a time ago (30m, 12h, 7d, 2w)')
    .option('--until <when>', 'made before: an ISO date or time, or a time ago')
    .action(async (options: ListOptions, command: Command) => {
      const { client, out } = commandContext(command);
      const query = listQuery(options);
      const page = await client.json<HistoryPage>('GET', `/api/history?${query}`, { timeoutMs: 15_000 });
      out.result(page, () => {
        const more = page.nextCursor ? `\n${out.color.dim(`more: ${nextPageCommand(query, page.nextCursor)}`)}` : '';
        if (page.groups) {
          return (
            page.groups
              .map(
                (group) =>
                  `${out.color.bold(group.sessionTitle ?? '(no session)')}${group.sessionDeleted ? out.color.dim(' (session deleted)') : ''} ${out.color.dim(plural(group.count, 'image'))}\n${group.items.map((item) => `  ${item.filename}`).join('\n')}`,
              )
              .join('\n') + more
          );
        }
        const items = page.items ?? [];
        const filtered = [...query.keys()].some((key) => key !== 'limit' && key !== 'cursor');
        if (!items.length) return filtered ? 'No images match.' : 'No images yet.';
        return (
          table([
            ['FILE', 'CREATED', 'LANE/MODEL', 'PROMPT'],
            ...items.map((item) => [
              item.filename,
              localTime(item.createdAt),
              `${item.provider}/${item.model}`,
              item.prompt.length > 50 ? `${item.prompt.slice(0, 49)}…` : item.prompt,
            ]),
          ]) + more
        );
      });
    });

  history
    .command('rm')
    .argument('<filename>', 'the image to delete (restorable for the retention window)')
    .option('--permanent', 'delete now, files included, with no undo (frees the space at once, also on a full disk)')
    .description('Delete an image from history (it can be restored for a while)')
    .action(async (filename: string, options: { permanent?: boolean }, command: Command) => {
      const { client, out } = commandContext(command);
      const query = options.permanent ? '?permanent=true' : '';
      const body = await client.json<{ filename: string; restorableUntil?: string; freedBytes?: number }>(
        'DELETE',
        `/api/history/${encode(filename)}${query}`,
        { timeoutMs: 15_000 },
      );
      out.result(body, () =>
        body.freedBytes !== undefined
          ? `${out.color.green('✓')} deleted ${body.filename} permanently ${out.color.dim(`(${body.freedBytes} bytes freed)`)}`
          : `${out.color.green('✓')} deleted ${body.filename}${body.restorableUntil ? out.color.dim(` (restorable until ${localTime(body.restorableUntil)}: svc history restore ${body.filename})`) : ''}`,
      );
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
