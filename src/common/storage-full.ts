import { statfsSync } from 'node:fs';
import { ServiceError } from './errors.js';

// A full disk (or a quota): every write fails, the files and the database
// that are already there stay intact. What was a 500 is one named error,
// STORAGE_FULL (507), that says how much is free and how much the server
// wants free before it takes new work.

/** Free space a server wants before it accepts work that writes (a job, a saved file). */
export const STORAGE_RESERVE_BYTES_DEFAULT = 64 * 1024 * 1024;

/** Whether `error` is the filesystem (or SQLite) saying there is no room. */
export function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

/** Bytes free to this process on the disk holding `dir`, or undefined when it cannot be read. */
export function freeBytes(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** The named error, with the disk's free space when it can be read. */
export function storageFullError(dir: string | undefined, neededBytes: number = STORAGE_RESERVE_BYTES_DEFAULT): ServiceError {
  const free = dir === undefined ? undefined : freeBytes(dir);
  const where = dir === undefined ? 'The disk' : `The disk holding ${dir}`;
  const has = free === undefined ? '' : ` (${mib(free)} free)`;
  return new ServiceError('STORAGE_FULL', `${where} is full${has}: free at least ${mib(neededBytes)} and try again. Reading works meanwhile.`, {
    details: { ...(dir === undefined ? {} : { path: dir }), ...(free === undefined ? {} : { freeBytes: free }), neededBytes },
  });
}

/** Refuses work that writes when the disk holding `dir` has less than `neededBytes` free. */
export function assertFreeSpace(dir: string, neededBytes: number): void {
  const free = freeBytes(dir);
  if (free !== undefined && free < neededBytes) throw storageFullError(dir, neededBytes);
}
