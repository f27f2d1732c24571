import { readdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { StudioRoutes } from './plugin.js';

/** Total bytes and file count under a directory (not following links). */
async function measure(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return { bytes, files };
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await measure(path);
      bytes += inner.bytes;
      files += inner.files;
    } else if (entry.isFile()) {
      bytes += (await stat(path)).size;
      files += 1;
    }
  }
  return { bytes, files };
}

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
      measure(paths.generatedDir),
      measure(paths.thumbnailsDir),
      fileSize(paths.databaseFile),
      fileSize(`${paths.databaseFile}-wal`),
      statfs(paths.home),
    ]);
    return {
      paths: { home: paths.home, config: paths.configFile, database: paths.databaseFile, generated: paths.generatedDir, descriptor: paths.descriptorFile },
      generated: { bytes: generated.bytes - thumbnails.bytes, files: generated.files - thumbnails.files },
      thumbnails,
      database: { bytes: database + wal },
      disk: { freeBytes: disk.bavail * disk.bsize, totalBytes: disk.blocks * disk.bsize },
    };
  });
};
