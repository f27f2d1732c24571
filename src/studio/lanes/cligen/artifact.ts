import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { ServiceError } from '../../errors.js';
import { sniffImageType, type ImageFormat } from '../../media/image-type.js';

// The CLI's image file, taken with care (contract §4): the path must be
// absolute, a regular file and no symlink, inside the CLI's home, ~/.cache or
// the temp dir (after resolving links in its parents), at most 50 MiB; it is
// read in 64 KiB blocks through one descriptor opened without following links,
// and it must still be the same file (device and inode) once read. Only then
// is it deleted (and its folder, if that left it empty). Nothing is moved.

/** Largest artifact taken (inclusive). */
export const ARTIFACT_MAX_BYTES = 50 * 1024 * 1024;
const BLOCK_BYTES = 64 * 1024;
/** How deep the fallback scan looks under a folder, and how much earlier than the spawn a file may be. */
const SCAN_DEPTH = 5;
const SCAN_SLACK_MS = 5000;
const IMAGE_NAME = /\.(png|jpe?g|webp)$/i;

/** Where the CLI keeps things, for one run. */
export interface CliPlaces {
  /** The CLI's home ({CLI_HOME}: `<home>/.gemini`). */
  readonly cliHome: string;
  /** Its artifact folder ({BRAIN}). */
  readonly brain: string;
  /** Folders an artifact may be in: the CLI home, ~/.cache, the temp dir. */
  readonly roots: readonly string[];
}

const failed = (reason: string, message: string, details: Record<string, unknown> = {}) =>
  new ServiceError('CLIGEN_GENERATION_FAILED', message, { details: { lane: 'cligen', reason, ...details } });

const inside = (path: string, root: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);

/** The roots with their own links resolved (the temp dir is often one); missing roots are dropped. */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return resolved.filter((root): root is string => root !== undefined);
}

export interface Artifact {
  readonly bytes: Buffer;
  readonly format: ImageFormat;
}

/** Reads the artifact at `path` under the rules above, then deletes it. */
export async function takeArtifact(path: string, places: CliPlaces, maxBytes = ARTIFACT_MAX_BYTES): Promise<Artifact> {
  const shown = { path: path.slice(0, 300) };
  if (!isAbsolute(path)) throw failed('path_rejected', `The CLI named an artifact path that is not absolute: ${shown.path}`, shown);
  let before;
  try {
    before = await lstat(path);
  } catch {
    throw failed('artifact_not_found', `The CLI named an artifact that does not exist: ${shown.path}`, shown);
  }
  if (before.isSymbolicLink() || !before.isFile())
    throw failed('path_rejected', `The CLI's artifact is not a regular file (a link or a folder): ${shown.path}`, shown);
  const canonical = join(await realpath(dirname(path)), path.slice(dirname(path).length + 1));
  const roots = await realRoots(places.roots);
  if (!roots.some((root) => inside(canonical, root))) {
    throw failed('path_rejected', `The CLI's artifact is outside its folders (${places.roots.join(', ')}): ${shown.path}`, {
      ...shown,
      roots: places.roots,
    });
  }
  if (before.size > maxBytes)
    throw failed('artifact_too_large', `The CLI's artifact is ${before.size} bytes; the limit is ${maxBytes}.`, {
      ...shown,
      bytes: before.size,
      maxBytes,
    });

  const file = await open(canonical, constants.O_RDONLY | constants.O_NOFOLLOW);
  let bytes: Buffer;
  try {
    const opened = await file.stat();
    if (opened.dev !== before.dev || opened.ino !== before.ino)
      throw failed('path_rejected', `The CLI's artifact changed while it was being opened: ${shown.path}`, shown);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const block = Buffer.alloc(BLOCK_BYTES);
      const { bytesRead } = await file.read(block, 0, BLOCK_BYTES, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes)
        throw failed('artifact_too_large', `The CLI's artifact grew past ${maxBytes} bytes while it was read.`, { ...shown, maxBytes });
      chunks.push(block.subarray(0, bytesRead));
    }
    bytes = Buffer.concat(chunks, total);
  } finally {
    await file.close();
  }
  const after = await lstat(canonical).catch(() => undefined);
  if (!after || after.dev !== before.dev || after.ino !== before.ino)
    throw failed('path_rejected', `The CLI's artifact was replaced while it was read: ${shown.path}`, shown);
  const format = sniffImageType(bytes);
  if (!format) throw failed('not_an_image', `The CLI's artifact is not a PNG, JPEG or WebP image: ${shown.path}`, shown);

  // Taken: the CLI's copy goes, and its folder if that emptied it (never anything else).
  await unlink(canonical).catch(() => {});
  await rmdir(dirname(canonical)).catch(() => {});
  return { bytes, format };
}

/** The newest file named `<stem>*.(png|jpg|jpeg|webp)` under `dir`, at most SCAN_DEPTH deep, links not followed. */
async function newestUnder(dir: string, stem: string, since: number, depth = 0): Promise<{ path: string; mtimeMs: number } | undefined> {
  if (depth > SCAN_DEPTH) return undefined;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  let best: { path: string; mtimeMs: number } | undefined;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let found: { path: string; mtimeMs: number } | undefined;
    if (entry.isDirectory()) found = await newestUnder(path, stem, since, depth + 1);
    else if (entry.isFile() && entry.name.startsWith(stem) && IMAGE_NAME.test(entry.name)) {
      const stats = await lstat(path).catch(() => undefined);
      if (stats && stats.mtimeMs >= since) found = { path, mtimeMs: stats.mtimeMs };
    }
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

/**
 * The artifact of a run whose output named none (some CLI versions print
 * nothing without a terminal): the newest file of this run's stem in {BRAIN},
 * then in {CLI_HOME}, made no earlier than shortly before the spawn.
 */
export async function findArtifact(places: CliPlaces, stem: string, spawnedAt: number): Promise<string | undefined> {
  const since = spawnedAt - SCAN_SLACK_MS;
  return (await newestUnder(places.brain, stem, since))?.path ?? (await newestUnder(places.cliHome, stem, since))?.path;
}
