import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { AssetStore } from '../media/asset-store.js';
import { mimeOf } from '../media/image-type.js';
import type { InputDescriptor, ReferenceImage } from '../references.js';

// The input images of jobs, stored content-addressed (`<sha256>` in the
// AssetStore's `inputs` space), so a job that waits in the queue, or is
// retried, still has its references after a restart. The jobs table says
// which job holds which file; the sweep removes every file no job holds (a
// refused request's, a crash's between the write and the row) once it is old
// enough not to be one a submit is about to claim. The same image sent a
// hundred times is one file.

export const inputHash = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const HASH = /^[0-9a-f]{64}$/;

export class JobInputs {
  constructor(private readonly assets: AssetStore) {}

  /** Writes the images not stored yet (a crash leaves whole files or none). */
  async store(images: readonly ReferenceImage[]): Promise<void> {
    await Promise.all(images.map((image) => this.assets.put('inputs', image.sha256, image.bytes)));
  }

  /** The image a stored descriptor names. */
  async load(descriptor: InputDescriptor): Promise<ReferenceImage> {
    if (!HASH.test(descriptor.sha256)) throw new Error(`A stored job input has no valid hash (${descriptor.sha256}).`);
    const bytes = await this.assets.read('inputs', descriptor.sha256);
    if (!(bytes instanceof Buffer)) {
      throw new ServiceError(
        'JOB_INPUTS_MISSING',
        'An input image of this job is no longer stored (removed from the state dir); send the request again with its images.',
        {
          details: { sha256: descriptor.sha256, ...(descriptor.filename ? { filename: descriptor.filename } : {}) },
        },
      );
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
    for (const name of await this.assets.names('inputs')) {
      if (!HASH.test(name) || (await held(name))) continue;
      const modifiedAt = (await this.assets.stat('inputs', name))?.modifiedAt ?? at;
      if (at - modifiedAt < minAgeMs) continue;
      await this.assets.remove('inputs', name);
      removed += 1;
    }
    return removed;
  }
}
