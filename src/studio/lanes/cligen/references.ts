import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaneInputImage } from '../types.js';

// The input images go to the CLI as files (contract §3): `ref_<i>.<ext>` in a
// fresh private directory `<tmp>/<stem>-refs-<12 hex>`, removed after the run
// whatever happened.

const EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export interface ReferenceFiles {
  readonly paths: readonly string[];
  /** Removes the directory and everything in it (never throws). */
  remove(): Promise<void>;
}

export async function writeReferenceFiles(tmp: string, stem: string, images: readonly LaneInputImage[]): Promise<ReferenceFiles> {
  if (images.length === 0) return { paths: [], remove: async () => {} };
  // mkdtemp appends 6 random characters; 12 hex before them make the name unguessable as the contract's.
  const dir = await mkdtemp(join(tmp, `${stem}-refs-${randomBytes(6).toString('hex')}`));
  const remove = () => rm(dir, { recursive: true, force: true }).catch(() => {});
  try {
    const paths = images.map((image, index) => join(dir, `ref_${index}.${EXTENSIONS[image.mime] ?? 'png'}`));
    await Promise.all(images.map((image, index) => writeFile(paths[index], image.bytes, { mode: 0o600, flag: 'wx' })));
    return { paths, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
