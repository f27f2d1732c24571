import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DurableWriter } from '../../common/durable-writer.js';
import { mimeOf } from '../media/image-type.js';
import type { InputDescriptor, ReferenceImage } from '../references.js';

// The input images of jobs, stored content-addressed (`<sha256>` in
// the state dir's job-inputs/), so a job that waits in the queue, or is
// retried, still has its references after a restart. The jobs table says
// which job holds which file; the retention sweep removes a file once no job
// holds it. The same image sent a hundred times is one file.

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
    const bytes = await readFile(join(this.dir, descriptor.sha256));
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

  /** Removes the files of these hashes; missing ones are fine. */
  async remove(hashes: readonly string[]): Promise<void> {
    await Promise.all(hashes.filter((hash) => HASH.test(hash)).map((hash) => rm(join(this.dir, hash), { force: true })));
  }
}
