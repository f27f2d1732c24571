import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { table } from '../output.js';

// `svc storage status | open`: where the studio keeps its state and how big it
// is (GET /api/storage/status); open the generated folder in the machine's
// file manager (POST /api/storage/open-generated-dir).

interface StorageStatus {
  paths: Record<string, string>;
  generated: { bytes: number; files: number };
  thumbnails: { bytes: number; files: number };
  database: { bytes: number };
  disk: { freeBytes: number; totalBytes: number };
  mediaPool?: { size: number; running: number; queued: number; completed: number };
}

function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit ? value.toFixed(1) : value} ${units[unit]}`;
}

export function registerStorage(program: Command): void {
  const storage = program.command('storage').description("The studio's files: where they are, how big, open the generated folder");

  storage
    .command('status')
    .description('Paths, sizes of images, thumbnails and database, free disk space, the thumbnail queue')
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<StorageStatus>('GET', '/api/storage/status', { timeoutMs: 30_000 });
      out.result(body, () =>
        [
          table(Object.entries(body.paths).map(([name, path]) => [name, path])),
          '',
          table([
            ['images', `${body.generated.files} files`, size(body.generated.bytes)],
            ['thumbnails', `${body.thumbnails.files} files`, size(body.thumbnails.bytes)],
            ['database', '', size(body.database.bytes)],
            ['disk free', '', `${size(body.disk.freeBytes)} of ${size(body.disk.totalBytes)}`],
            ...(body.mediaPool
              ? [
                  [
                    'thumbnailing',
                    `${body.mediaPool.running} of ${body.mediaPool.size} running, ${body.mediaPool.queued} queued`,
                    `${body.mediaPool.completed} done`,
                  ],
                ]
              : []),
          ]),
        ].join('\n'),
      );
    });

  storage
    .command('open')
    .description("Open the generated folder in this machine's file manager (the path is shown when there is none)")
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ opened: boolean; path: string }>('POST', '/api/storage/open-generated-dir', { timeoutMs: 10_000 });
      out.result(body, () => `${out.color.green('✓')} opened ${body.path}`);
    });
}
