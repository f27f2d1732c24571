import { statfsSync } from 'node:fs';
import { ServiceError } from './errors.js';

// A full disk (or a quota): every write fails, the files and the database
// that are already there stay intact. What was a 500 is one named error,
// STORAGE_FULL (507), that says how much is free and how much the server
// wants free before it takes new work.

/** Free space a server wants before it accepts work that writes (a job, a saved file). */
export const STORAGE_RESERVE_BYTES_DEFAULT = 64 * 1024 * 1024;

/** Where a server keeps its files, and the free space it wants there. */
export interface StorageSpot {
  readonly dir: string;
  readonly reserveBytes: number;
}

/** Whether `error` is the filesystem (or SQLite) saying there is no room. */
export function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

/** Bytes free to this process on the disk holding `dir`, or undefined when it cannot be read. */
function freeBytes(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** The named error, with the disk's free space when it can be read. */
export function storageFullError(spot: StorageSpot | undefined, free = spot && freeBytes(spot.dir)): ServiceError {
  const neededBytes = spot?.reserveBytes ?? STORAGE_RESERVE_BYTES_DEFAULT;
  const where = spot ? `The disk holding ${spot.dir}` : 'The disk';
  const has = free === undefined ? '' : ` (${mib(free)} free)`;
  return new ServiceError(
    'STORAGE_FULL',
    `${where} is full${has}: free at least ${mib(neededBytes)} and try again. Reading works meanwhile.`,
    {
      details: { ...(spot ? { path: spot.dir } : {}), ...(free === undefined ? {} : { freeBytes: free }), neededBytes },
    },
  );
}

/**
 * Start-up work that writes (recovery, an advertisement), failed with `error`: on a full disk the
 * server starts without it, so what it holds can be read and space freed, and the work waits for
 * the next start with room. Any other failure is rethrown.
 */
export function startWithoutIt(program: string, what: string, error: unknown): void {
  if (!isStorageFull(error)) throw error;
  process.stderr.write(`${program}: the disk is full; starting anyway, ${what} at the next start with free space\n`);
}
