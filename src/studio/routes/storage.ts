import { spawn } from 'node:child_process';
import { ServiceError } from '../errors.js';
import { findExecutable } from '../../common/process/index.js';
import type { StudioRoutes } from './plugin.js';

/** The program that opens a folder in the desktop's file manager, per platform. */
const OPENERS: Partial<Record<NodeJS.Platform, string>> = { linux: 'xdg-open', freebsd: 'xdg-open', darwin: 'open', win32: 'explorer.exe' };

export const storageRoutes: StudioRoutes = async (app, { ctx }) => {
  app.get('/api/storage/status', async () => {
    const { paths } = ctx;
    // Each store says what it holds and the room it has (the state dir's files and disk today).
    const [generated, thumbnails, database, disk] = await Promise.all([
      ctx.assets.usage('generated'),
      ctx.assets.usage('thumbnails'),
      ctx.store.size(),
      ctx.assets.capacity(),
    ]);
    return {
      paths: {
        home: paths.home,
        config: paths.configFile,
        database: paths.databaseFile,
        generated: paths.generatedDir,
        descriptor: paths.descriptorFile,
      },
      generated,
      thumbnails,
      database: { bytes: database },
      disk: { freeBytes: disk?.freeBytes ?? 0, totalBytes: disk?.totalBytes ?? 0 },
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
      throw new ServiceError(
        'OPENER_UNAVAILABLE',
        `This machine has no program to open folders${program ? ` (${program} is not installed)` : ''}; the folder is ${path}.`,
        { details: { path } },
      );
    }
    const child = spawn(opener, [path], { detached: true, stdio: 'ignore', env: { ...ctx.env } as NodeJS.ProcessEnv });
    child.on('error', () => {});
    child.unref();
    return { opened: true, path };
  });
};
