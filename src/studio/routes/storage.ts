import { stat, statfs } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { ServiceError } from '../errors.js';
import { findExecutable } from '../../common/process/index.js';
import type { StudioRoutes } from './plugin.js';

/** The program that opens a folder in the desktop's file manager, per platform. */
const OPENERS: Partial<Record<NodeJS.Platform, string>> = { linux: 'xdg-open', freebsd: 'xdg-open', darwin: 'open', win32: 'explorer.exe' };

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export const storageRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/storage/status', async () => {
    const { paths } = ctx;
    const [generated, thumbnails, database, wal, disk] = await Promise.all([
      ctx.assets.usage('generated'),
      ctx.assets.usage('thumbnails'),
      fileSize(paths.databaseFile),
      fileSize(`${paths.databaseFile}-wal`),
      statfs(paths.home),
    ]);
    return {
      paths: { home: paths.home, config: paths.configFile, database: paths.databaseFile, generated: paths.generatedDir, descriptor: paths.descriptorFile },
      generated,
      thumbnails,
      database: { bytes: database + wal },
      disk: { freeBytes: disk.bavail * disk.bsize, totalBytes: disk.blocks * disk.bsize },
      // Thumbnails and decode checks waiting for the media pool (one per core).
      mediaPool: ctx.derived.status(),
    };
  });

  // Opens the folder on this machine's desktop (the studio is local); the path is answered either way.
  app.post('/api/storage/open-generated-dir', async () => {
    const path = ctx.paths.generatedDir;
    const program = OPENERS[process.platform];
    const opener = program ? findExecutable(program, ctx.env.PATH) : undefined;
    if (!opener) {
      throw new ServiceError('OPENER_UNAVAILABLE', `This machine has no program to open folders${program ? ` (${program} is not installed)` : ''}; the folder is ${path}.`, { details: { path } });
    }
    const child = spawn(opener, [path], { detached: true, stdio: 'ignore', env: { ...ctx.env } as NodeJS.ProcessEnv });
    child.on('error', () => {});
    child.unref();
    return { opened: true, path };
  });
};
