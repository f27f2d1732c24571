import { accessSync, constants, mkdirSync, realpathSync, statfsSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';
import { EXIT_CODES } from '../common/errors.js';
import { CliError } from './client.js';

// Where `-o` writes. Checked before the job runs, so a bad path costs no
// generation: a directory (an existing one, or any path ending in `/`) takes
// each file under its history name; a file path needs its parent to exist
// (unless --mkdir). Special filesystems (/proc, /sys, /dev...) and targets that
// are not regular files are refused, never written (a FIFO would hang the
// write). Any file-system error is one line naming the path, with the code
// OUT_PATH_INVALID (usage, exit 2) for a path that cannot be used and
// OUT_WRITE_FAILED (exit 1) for a write that failed.

export interface OutTarget {
  /** The directory files go into under their history names, or undefined for one file path. */
  readonly dir?: string;
  /** The file path (several files: `name-2.png` style). */
  readonly file?: string;
}

/** statfs magic numbers of pseudo filesystems no image belongs on (linux/magic.h). */
const PSEUDO_FILESYSTEMS: Readonly<Record<number, string>> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x1cd1: 'devpts',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0x64626720: 'debugfs',
  0x73636673: 'securityfs',
  0x74726163: 'tracefs',
  0x6e736673: 'nsfs',
  0xcafe4a11: 'bpf',
};
/** Trees that hold devices and kernel state, whatever filesystem serves them. */
const SPECIAL_TREES = ['/proc', '/sys', '/dev'];

const invalid = (message: string, path: string) => new CliError(message, EXIT_CODES.usage, 'OUT_PATH_INVALID', { path });

/** The one-line reason of a file-system error. */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EEXIST':
      return 'a file of that name already exists';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOENT':
      return 'no such directory';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'read-only file system';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return code ? `${code}: ${(error as Error).message}` : String((error as Error)?.message ?? error);
  }
}

/** The nearest existing ancestor of a path (the path itself when it exists). */
function existingAncestor(path: string): string {
  let current = path;
  for (;;) {
    try {
      statSync(current);
      return current;
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

/** Refuses a path on a pseudo filesystem or under /proc, /sys, /dev. */
function refuseSpecial(path: string, shown: string): void {
  const anchor = existingAncestor(path);
  let real = anchor;
  try {
    real = realpathSync(anchor);
  } catch {
    // Unreadable: the checks below and the write say why.
  }
  const tree = SPECIAL_TREES.find((root) => real === root || real.startsWith(`${root}${sep}`));
  let type: string | undefined;
  try {
    type = PSEUDO_FILESYSTEMS[statfsSync(real).type];
  } catch {
    type = undefined;
  }
  if (tree || type)
    throw invalid(`Cannot write ${shown}: ${tree ?? `/${type}`} is a special filesystem; write to a regular directory.`, shown);
}

/** A directory that must exist (or is made with --mkdir) and be writable. */
function ensureDirectory(dir: string, shown: string, mkdir: boolean): void {
  let stats;
  try {
    stats = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw invalid(`Cannot write to ${shown}: ${fsReason(error)}.`, shown);
    if (!mkdir) throw invalid(`Cannot write to ${shown}: the directory ${dir} does not exist (add --mkdir to create it).`, shown);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (made) {
      throw invalid(`Cannot create ${dir}: ${fsReason(made)}.`, shown);
    }
    return;
  }
  if (!stats.isDirectory()) throw invalid(`Cannot write to ${shown}: ${dir} exists and is not a directory.`, shown);
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw invalid(`Cannot write to ${shown}: ${fsReason(error)}.`, shown);
  }
}

/** Whether `out` names a directory: it ends with a separator, or it is one. */
const namesDirectory = (out: string): boolean => {
  if (out.endsWith('/') || out.endsWith(sep)) return true;
  try {
    return statSync(out).isDirectory();
  } catch {
    return false;
  }
};

/** Checks `-o` before anything runs; throws OUT_PATH_INVALID with one line. */
export function prepareOut(out: string | undefined, options: { readonly mkdir?: boolean } = {}): OutTarget | undefined {
  if (out === undefined) return undefined;
  if (out.trim() === '') throw invalid('-o needs a file or directory path.', out);
  const path = resolve(out);
  refuseSpecial(path, out);
  if (namesDirectory(out)) {
    ensureDirectory(path, out, options.mkdir === true);
    return { dir: path };
  }
  ensureDirectory(dirname(path), out, options.mkdir === true);
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw invalid(`Cannot write ${out}: it exists and is not a regular file.`, out);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw invalid(`Cannot write ${out}: ${fsReason(error)}.`, out);
  }
  return { file: path };
}

/** Where file `index` of `count` goes: under its history name in a directory, else the path (`name-2.png` for several). */
export function outPath(target: OutTarget, historyName: string, index: number, count: number, format: string): string {
  if (target.dir !== undefined) return join(target.dir, historyName);
  const out = target.file as string;
  const extension = extname(out);
  const stem = extension ? out.slice(0, -extension.length) : out;
  const suffix = count > 1 ? `-${index + 1}` : '';
  return `${stem}${suffix}${extension || `.${format === 'jpeg' ? 'jpg' : format}`}`;
}

/** Where the one file of a command goes: under `name` in a directory, else exactly the path given. */
export const singlePath = (target: OutTarget, name: string): string =>
  target.dir !== undefined ? join(target.dir, name) : (target.file as string);

/** Writes one file atomically; a failure is one line (the asset stays in history under `historyName`). */
export function writeOut(path: string, bytes: Uint8Array | string, historyName?: string): void {
  try {
    writeFileAtomic(path, bytes);
  } catch (error) {
    const kept = historyName ? ` (it is in history as ${historyName})` : '';
    throw new CliError(`Cannot write ${path}: ${fsReason(error)}${kept}.`, EXIT_CODES.internal, 'OUT_WRITE_FAILED', {
      path,
      ...(historyName ? { filename: historyName } : {}),
    });
  }
}
