import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DurableWriter } from '../../common/durable-writer.js';
import { ServiceError } from '../errors.js';
import { mimeOf } from '../media/image-type.js';
import type { InputDescriptor, ReferenceImage } from '../references.js';

// The input images of jobs, stored content-addressed (`<sha256>` in
// the state dir's job-inputs/), so a job that waits in the queue, or is
// retried, still has its references after a restart. The jobs table says
// which job holds which file; the sweep removes every file no job holds (a
// refused request's, a crash's between the write and the row) once it is old
// enough not to be one a submit is about to claim. The same image sent a
// hundred times is one file.

export const inputHash = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const HASH = /^[0-9a-f]{64}$/;

export class JobInputs {
  constructor(
    private readonly dir: string,
    private readonly files: DurableWriter,
  ) {}

  /** Writes the images not stored yet (a crash leaves whole files or none). */
  async store(images: readonly ReferenceImage[]): Promise<void> {
    await Promise.all(images.map((image) => this.files.write(join(this.dir, image.sha256), image.bytes, { mode: 0o600, exclusive: true })));
  }

  /** The image a stored descriptor names. */
  async load(descriptor: InputDescriptor): Promise<ReferenceImage> {
    if (!HASH.test(descriptor.sha256)) throw new Error(`A stored job input has no valid hash (${descriptor.sha256}).`);
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.dir, descriptor.sha256));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new ServiceError('JOB_INPUTS_MISSING', 'An input image of this job is no longer stored (removed from the state dir); send the request again with its images.', {
        details: { sha256: descriptor.sha256, ...(descriptor.filename ? { filename: descriptor.filename } : {}) },
      });
    }
    return {
      bytes,
      format: descriptor.format,
      mime: mimeOf(descriptor.format),
      width: descriptor.width,
      height: descriptor.height,
      source: descriptor.source,
      sha256: descriptor.sha256,
      ...(descriptor.filename ? { filename: descriptor.filename } : {}),
    };
  }

  /** Removes the stored files no job holds that are older than `minAgeMs`; answers how many. */
  async sweep(held: (hash: string) => Promise<boolean>, minAgeMs: number, at = Date.now()): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir).catch(() => [])) {
      if (!HASH.test(name) || (await held(name))) continue;
      const path = join(this.dir, name);
      const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: at }));
      if (at - mtimeMs < minAgeMs) continue;
      await rm(path, { force: true });
      removed += 1;
    }
    return removed;
  }
}
