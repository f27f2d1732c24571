import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeSync, fsyncSync, closeSync, renameSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';

/**
 * Writes a file so that readers see either the old or the new content, never a
 * half-written one: write a temp sibling, fsync, rename over the target, fsync
 * the directory.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  const dir = dirname(path);
  // A private file's new directories are private too.
  mkdirSync(dir, { recursive: true, mode: mode & 0o077 ? 0o755 : 0o700 });
  const temp = atomicTempPath(path);
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dir);
}

/** Makes a rename in `dir` durable: without it a crash can forget the new name. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** True for names the writer above leaves behind if the process dies mid-write. */
export const isAtomicTempName = (name: string): boolean => name.startsWith('.') && name.endsWith('.tmp');

/**
 * A random id per process start. Temp names carry it, so a temp file of an
 * earlier boot is known as such even when its writer's pid was reused (a quick
 * restart, a container): every one of them is garbage.
 */
export const BOOT_ID = `b${randomBytes(6).toString('hex')}`;

/** The temp sibling both writers use: `.<name>.<boot id>.<random>.tmp`. */
export const atomicTempPath = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${BOOT_ID}.${randomBytes(4).toString('hex')}.tmp`);

/** Whether a temp name was written by this process start (a write may be in progress). */
export const isThisBootsTempName = (name: string): boolean => isAtomicTempName(name) && name.split('.').at(-3) === BOOT_ID;

/**
 * An atomic write without blocking the event loop and without fsync, for files
 * that can be made again (a thumbnail): never half-written, but a crash may
 * lose the new name. Durable writes off the loop go through DurableWriter.
 */
export async function writeFileAtomicAsync(path: string, data: Uint8Array, mode = 0o644): Promise<void> {
  const temp = atomicTempPath(path);
  try {
    // The folder nearly always exists: it is made only when the first open says it is missing.
    const handle = await open(temp, 'wx', mode).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      await mkdir(dirname(path), { recursive: true });
      return open(temp, 'wx', mode);
    });
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
