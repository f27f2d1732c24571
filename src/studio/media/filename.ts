import { access } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { ServiceError } from '../errors.js';
import { EXTENSION, type AssetFormat } from './image-type.js';

// File names of assets, the one allow-list. A name from a request is checked
// against it before it goes near the file system, and joined names are
// resolved and checked to stay inside their directory.

/** Fits the router's default 100-character path parameter (longer URLs get 414 before any route runs). */
export const FILENAME_MAX_LENGTH = 100;
/** Starts with a letter or digit (no leading dot), then letters, digits, `.`, `_`, `-`; an asset extension (raster, svg or mp4). */
const ASSET_FILENAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.(?:png|jpg|jpeg|webp|svg|mp4)$/;
const SLUG_MAX_LENGTH = 40;

export const isValidAssetFilename = (name: unknown): name is string =>
  typeof name === 'string' && name.length <= FILENAME_MAX_LENGTH && ASSET_FILENAME.test(name) && !name.includes('..');

/** Throws INVALID_FILENAME unless the name passes the allow-list. The name is echoed only when it is short printable text. */
export function assertValidFilename(name: unknown, details: Record<string, unknown> = {}): asserts name is string {
  if (isValidAssetFilename(name)) return;
  throw new ServiceError(
    'INVALID_FILENAME',
    'The file name is not a valid asset name (letters, digits, ".", "_", "-", an image extension).',
    { details },
  );
}

/** Lower-case ASCII words of the prompt joined by dashes, for a readable file name. */
export function slugOf(prompt: string): string {
  const slug = prompt
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents split off by NFKD: é -> e
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
  return slug || 'image';
}

const pad = (value: number): string => String(value).padStart(2, '0');

/** Random bytes of a name: 10 hex digits. */
const RANDOM_BYTES = 5;

/** `count` names `<yyyymmdd-hhmmss>-<slug>-<10 hex>.<ext>` (UTC), unique by their random part; the slug made once. */
export function newAssetFilenames(createdAt: Date, prompt: string, format: AssetFormat, count: number): string[] {
  const stamp = `${createdAt.getUTCFullYear()}${pad(createdAt.getUTCMonth() + 1)}${pad(createdAt.getUTCDate())}-${pad(createdAt.getUTCHours())}${pad(createdAt.getUTCMinutes())}${pad(createdAt.getUTCSeconds())}`;
  const prefix = `${stamp}-${slugOf(prompt)}-`;
  const random = randomBytes(RANDOM_BYTES * count).toString('hex');
  const step = RANDOM_BYTES * 2;
  return Array.from({ length: count }, (_, index) => `${prefix}${random.slice(index * step, (index + 1) * step)}.${EXTENSION[format]}`);
}

/** dir + a validated name, refusing anything that would resolve outside dir. */
export function pathInside(dir: string, name: string): string {
  assertValidFilename(name);
  const base = resolve(dir);
  const path = resolve(base, name);
  if (!path.startsWith(base + sep)) throw new ServiceError('INVALID_FILENAME');
  return path;
}

/** The `:filename` route parameter, validated (400 INVALID_FILENAME otherwise). */
export function filenameParam(params: unknown): string {
  const filename = (params as { filename?: unknown }).filename;
  assertValidFilename(filename);
  return filename;
}

/** Whether a file exists (no throw). */
export const fileExists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );
